import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURE_MANIFEST, FIXTURE_ROLE, fixtureCheckout, gateline, host, read, snapshot } from './helpers.ts';

// Each bad input: its exit code (1 for a problem with the inputs, 2 for a usage error), a message
// naming the file (and line where there is one), no stack trace, and the tree exactly as it was.

const ROLE = FIXTURE_ROLE;
const MANIFEST = FIXTURE_MANIFEST;
const RUNNER = { title: 'Test', package: 'test-cli', proven: '1.0.0', agents: { dirs: ['out'], suffix: '.md' } };
/** A manifest with a bad runner or headless block, and the line the refusal must name. */
function badBlock(edit: Record<string, unknown>, key: string): { text: string; line: number } {
  const text = JSON.stringify({ ...MANIFEST, ...edit }, null, 2);
  return { text, line: text.split('\n').findIndex((l) => l.includes(`"${key}"`)) + 1 };
}
const BAD_PROVEN = badBlock({ runner: { ...RUNNER, proven: 'latest' } }, 'proven');
const BAD_CHECK = badBlock(
  { runner: { ...RUNNER, home: '~/.test', host_checks: [{ id: 'x', check: 'vibes', file: 'f' }] } },
  'host_checks',
);
const BAD_OUTPUT = badBlock({ headless: { command: 'test', args: ['{prompt}'], output: 'xml' } }, 'output');
const fw = fixtureCheckout;

interface Case {
  name: string;
  make: () => string;
  args: string[];
  code: number;
  message: RegExp;
}

const cases: Case[] = [
  {
    name: 'missing frontmatter',
    make: () => fw({ 'roles/r.md': 'Just a body.\n' }),
    args: ['render'],
    code: 1,
    message: /roles\/r\.md:1: missing frontmatter/,
  },
  {
    name: 'unclosed frontmatter',
    make: () => fw({ 'roles/r.md': '---\ndispatch: x\n' }),
    args: ['render'],
    code: 1,
    message: /roles\/r\.md:1: frontmatter is not closed/,
  },
  {
    name: 'missing required key',
    make: () => fw({ 'roles/r.md': '---\ncapabilities: [read]\ncapability_profile: deep\n---\nBody.\n' }),
    args: ['render'],
    code: 1,
    message: /roles\/r\.md:1: missing required key 'dispatch'/,
  },
  {
    name: 'unknown capability',
    make: () => fw({ 'roles/r.md': '---\ndispatch: x\ncapabilities: [read, sudo]\ncapability_profile: deep\n---\nBody.\n' }),
    args: ['render'],
    code: 1,
    message: /roles\/r\.md:3: unknown capability 'sudo' \(known: read, search/,
  },
  {
    name: 'a line the reader cannot parse',
    make: () => fw({ 'roles/r.md': '---\ndispatch: x\ncapabilities:\n  - read\ncapability_profile: deep\n---\nBody.\n' }),
    args: ['render'],
    code: 1,
    message: /roles\/r\.md:3: 'capabilities' has no value[\s\S]*roles\/r\.md:4: cannot parse '- read'/,
  },
  {
    name: 'a key set twice',
    make: () => fw({ 'roles/r.md': '---\ndispatch: x\ndispatch: y\ncapabilities: [read]\ncapability_profile: deep\n---\nB\n' }),
    args: ['render'],
    code: 1,
    message: /roles\/r\.md:3: 'dispatch' is set twice/,
  },
  {
    name: 'bad JSON',
    make: () => fw({ 'adapters/test/manifest.json': '{\n  "adapter": "test",\n  "roles": [\n}\n' }),
    args: ['render'],
    code: 1,
    message: /adapters\/test\/manifest\.json:4: not valid JSON/,
  },
  {
    name: 'wrong types',
    make: () => fw({ 'adapters/test/manifest.json': JSON.stringify({ ...MANIFEST, roles: 'r', output_dir: 3 }, null, 2) }),
    args: ['render'],
    code: 1,
    message: /manifest\.json:\d+: 'output_dir' must be a non-empty string[\s\S]*manifest\.json:\d+: 'roles' must be an array/,
  },
  {
    name: 'a missing required manifest key',
    make: () => fw({ 'adapters/test/manifest.json': JSON.stringify({ ...MANIFEST, tools_style: undefined }) }),
    args: ['render'],
    code: 1,
    message: /manifest\.json: 'tools_style' is required/,
  },
  {
    name: 'an unknown manifest key (typo)',
    make: () => fw({ 'adapters/test/manifest.json': JSON.stringify({ ...MANIFEST, tool_maps: {} }, null, 2) }),
    args: ['render'],
    code: 1,
    message: /manifest\.json:\d+: 'tool_maps' is not a manifest key/,
  },
  {
    name: 'unknown profile',
    make: () => fw({ 'adapters/test/manifest.json': JSON.stringify({ ...MANIFEST, model_map: { fast: 'm' } }) }),
    args: ['render'],
    code: 1,
    message: /manifest\.json: no model for role 'r': its capability_profile 'deep' is not in model_map \(fast\)/,
  },
  {
    name: 'a role the manifest lists but no spec exists for',
    make: () => fw({ 'adapters/test/manifest.json': JSON.stringify({ ...MANIFEST, roles: ['r', 'ghost'] }) }),
    args: ['render'],
    code: 1,
    message: /roles\/ghost\.md: role spec not found/,
  },
  {
    name: 'a command prefix with a wildcard',
    make: () =>
      fw({ 'roles/r.md': ROLE.replace('[read]', '[read, shell]').replace('---\nBody', `commands: [git diff, git *]\n---\nBody`) }),
    args: ['render'],
    code: 1,
    message: /roles\/r\.md:5: 'commands' lists "git \*": a wildcard/,
  },
  {
    name: "a command prefix with a ';' chain",
    make: () =>
      fw({
        'roles/r.md': ROLE.replace('[read]', '[read, shell]').replace('---\nBody', `commands: [git diff, git status; rm -rf x]\n---\nBody`),
      }),
    args: ['render'],
    code: 1,
    message: /roles\/r\.md:5: 'commands' lists .*';' is a shell metacharacter/,
  },
  {
    name: "a command prefix with '&&'",
    make: () =>
      fw({
        'roles/r.md': ROLE.replace('[read]', '[read, shell]').replace('---\nBody', `commands: [git diff, npm test && curl x]\n---\nBody`),
      }),
    args: ['render'],
    code: 1,
    message: /roles\/r\.md:5: 'commands' lists .*'&' is a shell metacharacter/,
  },
  {
    name: 'a command prefix with a pipe',
    make: () =>
      fw({ 'roles/r.md': ROLE.replace('[read]', '[read, shell]').replace('---\nBody', `commands: [git diff, git log | sh]\n---\nBody`) }),
    args: ['render'],
    code: 1,
    message: /roles\/r\.md:5: 'commands' lists .*'\|' is a shell metacharacter/,
  },
  {
    name: 'a command prefix with a redirect',
    make: () =>
      fw({ 'roles/r.md': ROLE.replace('[read]', '[read, shell]').replace('---\nBody', `commands: [git diff, git diff > f]\n---\nBody`) }),
    args: ['render'],
    code: 1,
    message: /roles\/r\.md:5: 'commands' lists .*'>' is a shell metacharacter/,
  },
  {
    name: 'a command prefix with a backtick',
    make: () =>
      fw({ 'roles/r.md': ROLE.replace('[read]', '[read, shell]').replace('---\nBody', `commands: [git diff, echo \`id\`]\n---\nBody`) }),
    args: ['render'],
    code: 1,
    message: /roles\/r\.md:5: 'commands' lists .*'`' is a shell metacharacter/,
  },
  {
    name: "a command prefix with '$('",
    make: () =>
      fw({ 'roles/r.md': ROLE.replace('[read]', '[read, shell]').replace('---\nBody', `commands: [git diff, echo $(id)]\n---\nBody`) }),
    args: ['render'],
    code: 1,
    message: /roles\/r\.md:5: 'commands' lists .*'\$' is a shell metacharacter/,
  },
  {
    name: 'a command prefix with an empty prefix',
    make: () => fw({ 'roles/r.md': ROLE.replace('[read]', '[read, shell]').replace('---\nBody', `commands: [git diff, " "]\n---\nBody`) }),
    args: ['render'],
    code: 1,
    message: /roles\/r\.md:5: 'commands' lists .*an empty prefix would allow every command/,
  },
  {
    name: 'a hand-written file in the way',
    make: () => fw({ 'out/r.md': '---\nname: r\n---\nMine.\n' }),
    args: ['render'],
    code: 1,
    message: /out\/r\.md: was written by hand \(no RENDERED header\)/,
  },
  {
    name: 'an orphan (check)',
    make: () => orphaned(),
    args: ['render', '--check'],
    code: 1,
    message: /out\/gone\.md: orphan/,
  },
  {
    name: 'an orphan (validate)',
    make: () => orphaned(),
    args: ['validate'],
    code: 1,
    message: /out\/gone\.md: is an orphan/,
  },
  {
    name: 'an empty overlay',
    make: () => {
      // Rendered with a policy, then emptied: render itself refuses an emptied overlay.
      const dir = rendered(
        host(
          { '.gateline/overlays/_all.md': 'Policy.\n', '.gateline/overlays/reviewer.md': '<!-- stub -->\n' },
          { adapters: ['claude-code'] },
        ),
      );
      writeFileSync(join(dir, '.gateline/overlays/_all.md'), '  \n');
      return dir;
    },
    args: ['validate'],
    code: 1,
    message: /\.gateline\/overlays\/_all\.md: overlay is empty[\s\S]*\.gateline\/overlays\/planner\.md: overlay is missing/,
  },
  {
    name: 'an unclosed comment in an overlay',
    make: () => host({ '.gateline/overlays/_all.md': 'Policy.\n<!-- oops\n' }),
    args: ['render'],
    code: 1,
    message: /\.gateline\/overlays\/_all\.md:2: HTML comment is not closed/,
  },
  {
    name: 'a tampered vendored file',
    make: () => {
      const dir = rendered(host(stubs()));
      writeFileSync(join(dir, '.gateline/core/src/render/rules.ts'), '// widened\n');
      return dir;
    },
    args: ['validate'],
    code: 1,
    message: /\.gateline\/core\/src\/render\/rules\.ts: was edited after vendoring/,
  },
  {
    name: 'a lock that is not JSON',
    make: () => {
      const dir = host();
      writeFileSync(join(dir, '.gateline/framework-lock.json'), '{ "lockVersion": 1,\n');
      return dir;
    },
    args: ['render', '--check'],
    code: 1,
    message: /\.gateline\/framework-lock\.json:\d: not valid JSON/,
  },
  {
    name: 'an overlay that is a folder',
    make: () => host({ '.gateline/overlays/_all.md/x': 'x\n' }),
    args: ['render'],
    code: 1,
    message: /\.gateline\/overlays\/_all\.md: is a folder where a file is expected/,
  },
  {
    name: 'a manifest.json that is a folder',
    make: () => {
      const dir = fw({});
      rmSync(join(dir, 'adapters/test/manifest.json'));
      mkdirSync(join(dir, 'adapters/test/manifest.json'));
      return dir;
    },
    args: ['render'],
    code: 1,
    message: /adapters\/test\/manifest\.json: is a folder where a file is expected/,
  },
  {
    name: 'a lock that is a folder',
    make: () => {
      const dir = host();
      rmSync(join(dir, '.gateline/framework-lock.json'));
      mkdirSync(join(dir, '.gateline/framework-lock.json'));
      return dir;
    },
    args: ['validate'],
    code: 1,
    message: /\.gateline\/framework-lock\.json: is a folder where a file is expected/,
  },
  {
    name: 'a file where the output folder should be (found before anything is written)',
    make: () =>
      fw({
        out: 'not a folder\n',
        'adapters/second/manifest.json': JSON.stringify({ ...MANIFEST, adapter: 'second', output_dir: 'out2' }),
      }),
    args: ['render'],
    code: 1,
    message: /^out: cannot be used as the output folder \(ENOTDIR\)/m,
  },
  {
    name: 'a control character in a filename pattern',
    make: () => fw({ 'adapters/test/manifest.json': JSON.stringify({ ...MANIFEST, output_dir: 'o\u0000ut' }) }),
    args: ['render'],
    code: 1,
    message: /'output_dir' must not contain control characters/,
  },
  {
    name: 'a runner block whose proven version is not a version',
    make: () => fw({ 'adapters/test/manifest.json': BAD_PROVEN.text }),
    args: ['render'],
    code: 1,
    message: new RegExp(
      `^adapters/test/manifest\\.json:${BAD_PROVEN.line}: 'proven' in 'runner' must be the version the conformance suite proves`,
      'm',
    ),
  },
  {
    name: 'a runner block with a host check gateline does not know',
    make: () => fw({ 'adapters/test/manifest.json': BAD_CHECK.text }),
    args: ['validate'],
    code: 1,
    message: new RegExp(`^adapters/test/manifest\\.json:${BAD_CHECK.line}: 'host_checks' in 'runner' has the check "vibes"`, 'm'),
  },
  {
    name: 'a headless block with an unknown output format',
    make: () => fw({ 'adapters/test/manifest.json': BAD_OUTPUT.text }),
    args: ['render'],
    code: 1,
    message: new RegExp(`^adapters/test/manifest\\.json:${BAD_OUTPUT.line}: 'output' must be one of claude-json`, 'm'),
  },
  {
    name: 'a capability_profile named like an Object method',
    make: () => fw({ 'roles/r.md': '---\ndispatch: x\ncapabilities: [read]\ncapability_profile: toString\n---\nB\n' }),
    args: ['render'],
    code: 1,
    message: /no model for role 'r': its capability_profile 'toString' is not in model_map/,
  },
  { name: 'an unknown command', make: () => fw({}), args: ['rendr'], code: 2, message: /unknown command 'rendr'[\s\S]*--help/ },
  { name: 'an unknown flag', make: () => fw({}), args: ['render', '--chek'], code: 2, message: /Unknown option '--chek'/ },
  { name: 'no command', make: () => fw({}), args: [], code: 2, message: /no command given/ },
  { name: '--check on validate', make: () => fw({}), args: ['validate', '--check'], code: 2, message: /--check belongs to render/ },
  {
    name: 'a prefix outside the repo',
    make: () => fw({}),
    args: ['render', '--prefix', '../x'],
    code: 1,
    message: /--prefix: must stay inside the repository/,
  },
  {
    name: 'no host and no checkout',
    make: () => fw({}),
    args: ['render', '--root', '/'],
    code: 1,
    message: /no \.gateline\/framework-lock\.json here or above/,
  },
];

function stubs(): Record<string, string> {
  const files: Record<string, string> = { '.gateline/overlays/_all.md': '<!-- stub -->\n' };
  for (const role of ['planner', 'implementer', 'reviewer', 'verifier']) files[`.gateline/overlays/${role}.md`] = '<!-- stub -->\n';
  return files;
}

function rendered(dir: string): string {
  expect(gateline(['render'], dir).code).toBe(0);
  return dir;
}

function orphaned(): string {
  const dir = rendered(fw({ 'roles/gone.md': ROLE, 'adapters/test/manifest.json': JSON.stringify({ ...MANIFEST, roles: ['r', 'gone'] }) }));
  writeFileSync(join(dir, 'adapters/test/manifest.json'), JSON.stringify(MANIFEST));
  return dir;
}

describe('bad inputs', () => {
  for (const c of cases) {
    it(c.name, () => {
      const dir = c.make();
      const before = snapshot(dir);
      const run = gateline(c.args, dir);
      expect(run.code, run.stderr).toBe(c.code);
      expect(run.stderr).toMatch(c.message);
      expect(`${run.stdout}${run.stderr}`).not.toMatch(/\n\s+at .*:\d+:\d+/);
      expect(snapshot(dir)).toEqual(before);
    });
  }
});

describe('inputs that must work', () => {
  it('CRLF and BOM role specs, manifests and overlays render like LF ones', () => {
    const crlf = (s: string) => `\uFEFF${s.replaceAll('\n', '\r\n')}`;
    const lf = rendered(host(stubs(), { adapters: ['opencode'] }));
    const dir = host({ ...stubs(), '.gateline/overlays/_all.md': crlf('<!-- stub -->\n') }, { adapters: ['opencode'] });
    for (const path of ['roles/reviewer.md', 'adapters/opencode/manifest.json']) {
      writeFileSync(join(dir, '.gateline/core', path), crlf(read(dir, `.gateline/core/${path}`)));
    }
    const run = gateline(['render'], dir);
    expect(run.code, run.stderr).toBe(0);
    const out = read(dir, '.opencode/agents/reviewer.md');
    expect(out).not.toContain('\r');
    expect(out).toBe(read(lf, '.opencode/agents/reviewer.md'));
  });

  it('a bad input in one role is reported with every other problem, and nothing is written', () => {
    const dir = fw({
      'roles/a.md': '---\ndispatch: x\ncapabilities: [root]\ncapability_profile: deep\n---\nB\n',
      'roles/b.md': 'no frontmatter\n',
      'adapters/test/manifest.json': JSON.stringify({ ...MANIFEST, roles: ['r', 'a', 'b'] }),
    });
    const run = gateline(['render'], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/roles\/a\.md:3: unknown capability 'root'/);
    expect(run.stderr).toMatch(/roles\/b\.md:1: missing frontmatter/);
    expect(run.stderr).toMatch(/2 problems; nothing was written/);
    expect(snapshot(dir)['out/r.md']).toBeUndefined();
  });
});
