import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { locate } from '../src/render/context.ts';
import { planRender } from '../src/render/plan.ts';
import { CAPABILITIES } from '../src/shared/capabilities.ts';
import { checkout, gateline, host, read, snapshot, testdir, writeFiles } from './helpers.ts';

// A widened permission is the worst bug this tool can have; these tests try to provoke one.

const ROLE = (caps: string[]) => `---\ndispatch: Test role.\ncapabilities: [${caps.join(', ')}]\ncapability_profile: deep\n---\nBody.\n`;

function manifest(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    adapter: 'test',
    output_dir: 'out',
    filename: '{role}.md',
    tools_style: 'csv',
    roles: ['r'],
    tool_map: { read: ['Read'], search: ['Grep'], edit: ['Edit'], write: ['Write'], shell: ['Bash'], web: ['Web'], delegate: ['Agent'] },
    model_map: { deep: 'm' },
    ...overrides,
  });
}

/** The tool names a rendered file grants, read back from whichever style it uses. */
function grantedTools(text: string): string[] {
  const fm = text.split('\n---\n')[0] as string;
  const csv = /^tools: (.*)$/m.exec(fm)?.[1];
  if (csv !== undefined) return csv === '[]' ? [] : csv.split(', ');
  const list = /^tools:\n((?: {2}- .*\n?)*)/m.exec(fm);
  if (list)
    return (list[1] as string)
      .split('\n')
      .filter(Boolean)
      .map((l) => l.slice(4));
  const perm = /^permission:\n((?: {2}.*\n?)*)/m.exec(fm);
  if (perm) {
    const rules = (perm[1] as string).split('\n').filter(Boolean);
    expect(rules[0]).toBe('  "*": deny');
    const granted: string[] = [];
    for (const [i, rule] of rules.entries()) {
      if (i === 0 || rule.startsWith('    ')) continue;
      const plain = /^ {2}(\S+): allow$/.exec(rule);
      const nested = /^ {2}(\S+):$/.exec(rule);
      if (!plain && !nested) throw new Error(`not a permission rule: ${rule}`);
      granted.push(((plain ?? nested) as RegExpExecArray)[1] as string);
      if (nested) {
        // A pattern map: it opens with its own default, and only deny rules may follow an allow-all.
        const inner = rules.slice(i + 1).filter((_, j, all) => all.slice(0, j + 1).every((r) => r.startsWith('    ')));
        expect(inner[0], rule).toMatch(/^ {4}"\*": (deny|allow)$/);
        if (inner[0]?.endsWith('allow')) for (const r of inner.slice(1)) expect(r, rule).toMatch(/: deny$/);
      }
    }
    return granted;
  }
  throw new Error(`no tool list in:\n${fm}`);
}

// The expectations below are written from the contract, not computed by the renderer's code:
// the capability vocabulary, and "a role's tools are only those mapped from its own
// capabilities; a tool mapped from a capability the role has AND from one it lacks is refused".
const VOCABULARY = ['read', 'search', 'edit', 'write', 'shell', 'web', 'delegate'];

interface Expected {
  /** The tools mapped from the role's capabilities, in the order the role lists them, each once. */
  tools: string[];
  /** Each such tool that a capability the role lacks maps to as well, with those capabilities. */
  leaks: { tool: string; lacking: string[] }[];
}

function expectedGrant(caps: string[], toolMap: Record<string, string[]>): Expected {
  const tools = [...new Set(caps.flatMap((c) => toolMap[c] ?? []))];
  const leaks = tools
    .map((tool) => ({ tool, lacking: VOCABULARY.filter((c) => !caps.includes(c) && (toolMap[c] ?? []).includes(tool)) }))
    .filter((leak) => leak.lacking.length > 0);
  return { tools, leaks };
}

/** The capabilities a role spec lists, read straight from its frontmatter. */
function capabilitiesOf(roleText: string): string[] {
  const list = /^capabilities: \[(.*)\]$/m.exec(roleText)?.[1] ?? '';
  return list === '' ? [] : list.split(', ');
}

describe('the capability vocabulary', () => {
  it('is the one the contract lists', () => expect([...CAPABILITIES]).toEqual(VOCABULARY));
});

describe('shipped adapters grant each role exactly what its capabilities map to', () => {
  const dir = checkout();
  const plan = planRender(locate(dir));
  interface Shipped {
    output_dir: string;
    filename: string;
    tools_style: string;
    roles: string[];
    tool_map: Record<string, string[]>;
    floor?: Record<string, string>;
  }
  const cases = readdirSync(join(dir, 'adapters'))
    .filter((name) => existsSync(join(dir, 'adapters', name, 'manifest.json')))
    .flatMap((adapter) => {
      const m = JSON.parse(read(dir, `adapters/${adapter}/manifest.json`)) as Shipped;
      return m.roles.map((role) => ({
        adapter,
        role,
        m,
        caps: capabilitiesOf(read(dir, `roles/${role}.md`)),
        path: `${m.output_dir}/${m.filename.replace('{role}', role)}`,
      }));
    });
  const content = (path: string) => plan.files.find((f) => f.path === path)?.content;

  it('covers every adapter and role, and plans without problems (no shipped role shares a tool with a lacking capability)', () => {
    expect(cases.length).toBeGreaterThanOrEqual(15);
    for (const c of cases) expect(expectedGrant(c.caps, c.m.tool_map).leaks, c.path).toEqual([]);
    expect(plan.problems).toEqual([]);
    expect(plan.files.map((f) => f.path).sort()).toEqual(cases.map((c) => c.path).sort());
  });

  for (const c of cases.filter((x) => x.m.tools_style !== 'codex-sandbox')) {
    it(c.path, () => {
      const text = content(c.path);
      expect(text, `${c.path} was not planned`).toBeDefined();
      const granted = grantedTools(text as string);
      expect(granted).toEqual(expectedGrant(c.caps, c.m.tool_map).tools);
      expect(granted.length).toBeGreaterThan(0);
      if (c.role === 'reviewer' || c.role === 'verifier') {
        for (const tool of [...(c.m.tool_map.edit ?? []), ...(c.m.tool_map.write ?? [])]) expect(granted).not.toContain(tool);
      }
    });
  }

  for (const c of cases.filter((x) => x.m.tools_style === 'codex-sandbox')) {
    it(`${c.path} (capabilities narrow onto the sandbox and web search; the floor covers the rest)`, () => {
      const text = content(c.path);
      expect(text, `${c.path} was not planned`).toBeDefined();
      const writes = c.caps.includes('edit') || c.caps.includes('write');
      expect(text).toContain(`sandbox_mode = "${writes ? 'workspace-write' : 'read-only'}"`);
      expect(text).toContain(`web_search = "${c.caps.includes('web') ? 'live' : 'disabled'}"`);
      for (const cap of Object.keys(c.m.floor ?? {})) expect(c.caps).toContain(cap);
    });
  }
});

describe('random roles and tool maps never widen', () => {
  it('holds for 300 generated cases', () => {
    let seed = 7;
    // The high bits of the generator: its low bits repeat with a short period (56 distinct cases).
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return Math.floor(seed / 2 ** 16) % n;
    };
    const pool = ['a', 'b', 'c', 'd', 'e', 'f'];
    let refused = 0;
    for (let i = 0; i < 300; i++) {
      // Capabilities in vocabulary order, so "the role's order" and the vocabulary's agree.
      const caps = VOCABULARY.filter(() => rand(2) === 0);
      // Sparse enough that about half the cases render and half are refused.
      const toolMap = Object.fromEntries(VOCABULARY.map((c) => [c, pool.filter(() => rand(8) === 0)]));
      const style = (['csv', 'yaml-list', 'permission-map'] as const)[rand(3)];
      const dir = checkout(
        { 'roles/r.md': ROLE(caps), 'adapters/test/manifest.json': manifest({ tool_map: toolMap, tools_style: style }) },
        { shipped: false },
      );
      const expected = expectedGrant(caps, toolMap);
      const plan = planRender(locate(dir));
      const where = `case ${i}: capabilities [${caps.join(', ')}], tool_map ${JSON.stringify(toolMap)}`;
      if (expected.leaks.length > 0) {
        refused++;
        // Refused, naming for each leaking tool the capabilities it would leak; nothing planned.
        expect(plan.files, where).toEqual([]);
        expect(plan.problems, where).toHaveLength(expected.leaks.length);
        for (const leak of expected.leaks) {
          const problem = plan.problems.find((p) => p.message.includes(`: tool '${leak.tool}' `));
          expect(problem?.message, where).toMatch(/^role 'r' would leak capability /);
          for (const cap of leak.lacking) expect(problem?.message, where).toContain(`'${cap}'`);
        }
      } else {
        expect(plan.problems, where).toEqual([]);
        expect(grantedTools(plan.files[0]?.content ?? ''), where).toEqual(expected.tools);
      }
    }
    // The generator reaches both outcomes often, so neither branch is vacuous.
    expect(refused).toBeGreaterThan(100);
    expect(refused).toBeLessThan(200);
  });
});

describe('roles rendered in one run keep their own grant', () => {
  // The tools are worked out once per capability list, and the frontmatter once per manifest,
  // tools and model, for every role that shares them: each of these roles differs from another
  // in one of them only (or in its command list, or in its capabilities' order).
  const spec = (caps: string[], profile: string, commands?: string[]) =>
    `---\ndispatch: Role on ${profile}.\ncapabilities: [${caps.join(', ')}]\n${commands ? `commands: [${commands.join(', ')}]\n` : ''}capability_profile: ${profile}\n---\nBody.\n`;
  const roles = {
    a: spec(['read', 'shell'], 'deep'),
    b: spec(['read', 'shell'], 'fast'),
    c: spec(['read', 'shell'], 'deep', ['git diff']),
    d: spec(['read', 'shell'], 'deep', ['git log']),
    e: spec(['read', 'search', 'shell'], 'deep'),
    f: spec(['read', 'shell'], 'deep'),
    g: spec(['shell', 'read'], 'deep'),
  };
  for (const style of ['csv', 'permission-map'] as const) {
    it(`in a ${style} adapter, each role's file shows its own tools, commands and model`, () => {
      const dir = checkout(
        {
          ...Object.fromEntries(Object.entries(roles).map(([name, text]) => [`roles/${name}.md`, text])),
          'adapters/test/manifest.json': manifest({
            roles: Object.keys(roles),
            tools_style: style,
            model_map: { deep: 'model-deep', fast: 'model-fast' },
            ...(style === 'permission-map'
              ? { tool_map: { read: ['read'], search: ['grep'], shell: ['bash'] }, shell_commands: { allow: ['{command}'], deny: ['*;*'] } }
              : { tool_map: { read: ['Read'], search: ['Grep'], shell: ['Bash'] } }),
          }),
        },
        { shipped: false },
      );
      const plan = planRender(locate(dir));
      const file = (name: string) => plan.files.find((f) => f.path === `out/${name}.md`)?.content ?? '';
      if (style === 'csv') {
        // A csv adapter cannot hold a shell to a list: c and d are refused, the rest rendered.
        expect(plan.problems.map((p) => p.message.slice(0, 8))).toEqual(["role 'c'", "role 'd'"]);
      } else expect(plan.problems).toEqual([]);
      expect(/^model: (.*)$/m.exec(file('a'))?.[1]).toBe('model-deep');
      expect(/^model: (.*)$/m.exec(file('b'))?.[1]).toBe('model-fast');
      expect(/^description: (.*)$/m.exec(file('b'))?.[1]).toBe('Role on fast.');
      expect(grantedTools(file('e'))).toEqual(style === 'csv' ? ['Read', 'Grep', 'Bash'] : ['read', 'grep', 'bash']);
      expect(grantedTools(file('f'))).toEqual(style === 'csv' ? ['Read', 'Bash'] : ['read', 'bash']);
      // The same capabilities in another order: the tools follow the role's order.
      expect(grantedTools(file('g'))).toEqual(style === 'csv' ? ['Bash', 'Read'] : ['bash', 'read']);
      expect(file('f')).toBe(file('a').replaceAll("'a'", "'f'").replaceAll('roles/a.md', 'roles/f.md').replace('name: a', 'name: f'));
      if (style === 'permission-map') {
        expect(file('c')).toMatch(/^ {4}"git diff": allow$/m);
        expect(file('c')).not.toContain('git log');
        expect(file('d')).toMatch(/^ {4}"git log": allow$/m);
        expect(file('d')).not.toContain('git diff');
        expect(file('a')).toMatch(/^ {2}bash: allow$/m);
      }
    });
  }
});

describe('refusals', () => {
  const cases: [string, Record<string, string>, RegExp][] = [
    [
      'a tool shared with a capability the role lacks (opencode edit covers write)',
      {
        'roles/r.md': ROLE(['read', 'edit']),
        'adapters/test/manifest.json': manifest({ tool_map: { read: ['read'], edit: ['edit'], write: ['edit'] } }),
      },
      /role 'r' would leak capability 'write': tool 'edit'.*Grant the role 'write'/,
    ],
    ...[
      'tools',
      'permission',
      'permissions',
      'permissionMode',
      'disallowedTools',
      'sandbox_mode',
      'approval_policy',
      'mcpServers',
      'Permission-Mode',
    ].map((key): [string, Record<string, string>, RegExp] => [
      `extra_frontmatter setting '${key}'`,
      { 'roles/r.md': ROLE(['read']), 'adapters/test/manifest.json': manifest({ extra_frontmatter: { [key]: 'x' } }) },
      new RegExp(`may not set '${key}': only keys in 'extra_frontmatter_keys' \\(none\\)`),
    ]),
    [
      'an allow-list that is not a list of keys',
      { 'roles/r.md': ROLE(['read']), 'adapters/test/manifest.json': manifest({ extra_frontmatter_keys: 'color' }) },
      /'extra_frontmatter_keys' must be an array of frontmatter keys/,
    ],
    ...[1e21, 1.5e-7, 2 ** 53].map((value): [string, Record<string, string>, RegExp] => [
      `an extra_frontmatter number YAML and TOML could read differently (${value})`,
      {
        'roles/r.md': ROLE(['read']),
        'adapters/test/manifest.json': manifest({ extra_frontmatter_keys: ['effort'], extra_frontmatter: { effort: value } }),
      },
      /'effort' is .*: write a plain decimal/,
    ]),
    [
      "an allow-list naming a key the renderer writes ('tools')",
      {
        'roles/r.md': ROLE(['read']),
        'adapters/test/manifest.json': manifest({ extra_frontmatter_keys: ['tools'], extra_frontmatter: { tools: 'Write' } }),
      },
      /'extra_frontmatter_keys' lists 'tools', which the renderer writes/,
    ],
    [
      'a wildcard tool',
      { 'roles/r.md': ROLE(['read']), 'adapters/test/manifest.json': manifest({ tool_map: { read: ['mcp_*'] } }) },
      /wildcard 'mcp_\*'/,
    ],
    [
      'a rule that matches everything (Bash(*))',
      { 'roles/r.md': ROLE(['read']), 'adapters/test/manifest.json': manifest({ tool_map: { read: ['Read', 'Bash(*)'] } }) },
      /wildcard 'Bash\(\*\)'/,
    ],
    [
      'a rule that smuggles a tool list (Bash(x, Write))',
      { 'roles/r.md': ROLE(['read']), 'adapters/test/manifest.json': manifest({ tool_map: { read: ['Read', 'Bash(x, Write)'] } }) },
      /'Bash\(x, Write\)', which is not a plain tool name/,
    ],
    [
      'a narrowed rule of a tool another capability grants (Bash(git diff:*) under read, Bash under shell)',
      {
        'roles/r.md': ROLE(['read']),
        'adapters/test/manifest.json': manifest({ tool_map: { read: ['Read', 'Bash(git diff:*)'], shell: ['Bash'] } }),
      },
      /role 'r' would leak capability 'shell': tool 'Bash\(git diff:\*\)'/,
    ],
    [
      'extra_frontmatter overriding the rendered name',
      { 'roles/r.md': ROLE(['read']), 'adapters/test/manifest.json': manifest({ extra_frontmatter: { name: 'admin' } }) },
      /may not set 'name'/,
    ],
    [
      'output_dir with ..',
      { 'roles/r.md': ROLE([]), 'adapters/test/manifest.json': manifest({ output_dir: 'a/../../out' }) },
      /'\.\.' is not allowed/,
    ],
    ['absolute output_dir', { 'roles/r.md': ROLE([]), 'adapters/test/manifest.json': manifest({ output_dir: '/tmp/x' }) }, /not absolute/],
    [
      'output_dir into .git',
      { 'roles/r.md': ROLE([]), 'adapters/test/manifest.json': manifest({ output_dir: '.git/hooks' }) },
      /must not point into \.git/,
    ],
    [
      'a filename with a separator',
      { 'roles/r.md': ROLE([]), 'adapters/test/manifest.json': manifest({ filename: '../{role}.md' }) },
      /without path separators/,
    ],
    [
      'a filename without {role}',
      { 'roles/r.md': ROLE([]), 'adapters/test/manifest.json': manifest({ filename: 'agent.md' }) },
      /must contain '\{role\}'/,
    ],
    [
      'a role name that is a path',
      { 'roles/r.md': ROLE([]), 'adapters/test/manifest.json': manifest({ roles: ['../../etc/passwd'] }) },
      /not a role name/,
    ],
  ];
  for (const [name, files, message] of cases) {
    it(name, () => {
      const dir = checkout(files, { shipped: false });
      const before = snapshot(dir);
      const run = gateline(['render'], dir);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toMatch(/adapters\/test\/manifest\.json/);
      expect(run.stderr).not.toMatch(/\n\s+at /);
      expect(snapshot(dir)).toEqual(before);
    });
  }

  it('an output folder reached through a symlink that leaves the repository', () => {
    const outside = testdir();
    const dir = checkout(
      { 'roles/r.md': ROLE(['read']), 'adapters/test/manifest.json': manifest({ output_dir: 'link/agents' }) },
      { shipped: false },
    );
    symlinkSync(outside, join(dir, 'link'));
    const run = gateline(['render'], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/'link' is a symbolic link that leaves the repository/);
    expect(snapshot(outside)).toEqual({});
  });

  it('an output file that is a symlink', () => {
    const outside = testdir({ 'target.md': 'secret\n' });
    const dir = checkout({ 'roles/r.md': ROLE(['read']), 'adapters/test/manifest.json': manifest() }, { shipped: false });
    mkdirSync(join(dir, 'out'));
    symlinkSync(join(outside, 'target.md'), join(dir, 'out/r.md'));
    const run = gateline(['render'], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/'out\/r\.md' is a symbolic link; gateline writes only regular files/);
    expect(read(outside, 'target.md')).toBe('secret\n');
  });
});

describe('empty tool lists are explicit, never omitted', () => {
  for (const [style, line] of [
    ['csv', 'tools: []'],
    ['yaml-list', 'tools: []'],
    ['permission-map', 'permission:\n  "*": deny\nmodel'],
  ] as const) {
    it(style, () => {
      const dir = checkout({ 'roles/r.md': ROLE([]), 'adapters/test/manifest.json': manifest({ tools_style: style }) }, { shipped: false });
      expect(gateline(['render'], dir).code).toBe(0);
      const out = read(dir, 'out/r.md');
      expect(out).toContain(line);
      expect(out).not.toMatch(/^tools:\s*$/m);
    });
  }
  it('a capability the adapter maps to nothing narrows to an empty list', () => {
    const dir = checkout(
      { 'roles/r.md': ROLE(['web']), 'adapters/test/manifest.json': manifest({ tool_map: { read: ['Read'] } }) },
      { shipped: false },
    );
    expect(gateline(['render'], dir).code).toBe(0);
    expect(read(dir, 'out/r.md')).toContain('tools: []');
  });
});

describe('floors: what a runner cannot withhold is refused, not widened', () => {
  it('a role lacking a floor capability is refused with the role, runner, capability and the fix', () => {
    const dir = checkout(
      {
        'roles/r.md': ROLE(['read']),
        'adapters/test/manifest.json': manifest({ floor: { shell: 'its agents can always execute commands' } }),
      },
      { shipped: false },
    );
    const before = snapshot(dir);
    const run = gateline(['render'], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /adapters\/test\/manifest\.json: role 'r' cannot be rendered for test: it lacks 'shell', which test cannot withhold \(its agents can always execute commands\)\. Grant the role 'shell' in roles\/r\.md, or drop 'r' from this adapter's roles/,
    );
    expect(snapshot(dir)).toEqual(before);
  });

  it('the shipped Codex adapter refuses the read-only reviewer', () => {
    const dir = checkout();
    const path = join(dir, 'adapters/codex/manifest.json');
    writeFileSync(
      path,
      read(dir, 'adapters/codex/manifest.json').replace('"roles": ["implementer"]', '"roles": ["implementer", "reviewer"]'),
    );
    const run = gateline(['render'], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/role 'reviewer' cannot be rendered for codex: it lacks 'edit'/);
    expect(run.stderr).toMatch(/role 'reviewer' cannot be rendered for codex: it lacks 'write'/);
  });

  it('a .toml filename and the codex-sandbox style go together', () => {
    const dir = checkout(
      { 'roles/r.md': ROLE(['read']), 'adapters/test/manifest.json': manifest({ filename: '{role}.toml' }) },
      { shipped: false },
    );
    expect(gateline(['render'], dir).stderr).toMatch(/'tools_style' must be 'codex-sandbox' for a \.toml filename/);
  });
});

describe('Codex TOML', () => {
  const codex = (caps: string[], body: string) =>
    checkout(
      {
        'roles/r.md': `---\ndispatch: Say "hi": then stop.\ncapabilities: [${caps.join(', ')}]\ncapability_profile: deep\n---\n${body}`,
        'adapters/codex/manifest.json': manifest({ adapter: 'codex', filename: '{role}.toml', tools_style: 'codex-sandbox', tool_map: {} }),
      },
      { shipped: false },
    );

  for (const [name, body] of [
    ['plain text as a literal string', 'Use `x`.\nA \\ backslash.\n'],
    [
      "text with ''' and control characters as an escaped basic string",
      "Quote ''' here.\nA \\ backslash, a \"quote\" and a bell \u0007.\n",
    ],
  ] as const) {
    it(`parses back exactly: ${name}`, () => {
      const dir = codex(['read', 'search', 'web'], body);
      expect(gateline(['render'], dir).code).toBe(0);
      const parsed = parseToml(read(dir, 'out/r.toml'));
      expect(parsed).toEqual({
        name: 'r',
        description: 'Say "hi": then stop.',
        model: 'm',
        sandbox_mode: 'read-only',
        web_search: 'live',
        developer_instructions: `${body.trimEnd()}\n`, // the newline before the closing quotes belongs to the value
      });
    });
  }

  it('edit or write gives workspace-write; no web gives disabled', () => {
    const dir = codex(['read', 'write'], 'Body.\n');
    gateline(['render'], dir);
    expect(parseToml(read(dir, 'out/r.toml'))).toMatchObject({ sandbox_mode: 'workspace-write', web_search: 'disabled' });
  });
});

describe('command lists and secret files in a permission map', () => {
  const dir = checkout();
  const plan = planRender(locate(dir));
  const opencode = (role: string) => plan.files.find((f) => f.path === `.opencode/agents/${role}.md`)?.content ?? '';
  const block = (text: string, key: string) => new RegExp(`^ {2}${key}:\\n((?: {4}.*\\n)*)`, 'm').exec(text)?.[1] ?? '';

  for (const role of ['reviewer', 'verifier']) {
    it(`the ${role}'s shell allows exactly its listed commands, then denies redirects, pipes and chains`, () => {
      const commands = (/^commands: \[(.*)\]$/m.exec(read(dir, `roles/${role}.md`))?.[1] ?? '').split(', ');
      expect(commands.length).toBeGreaterThan(2);
      const lines = block(opencode(role), 'bash').trimEnd().split('\n');
      expect(lines[0]).toBe('    "*": deny');
      const allowed = lines.filter((l) => l.endsWith(': allow')).map((l) => JSON.parse(l.trim().replace(/: allow$/, '')));
      expect(allowed).toEqual(commands.flatMap((c) => [c, `${c} *`]));
      const denied = lines.slice(1 + allowed.length).map((l) => JSON.parse(l.trim().replace(/: deny$/, '')));
      for (const meta of ['>', '|', ';', '&', '`', '$(']) expect(denied, meta).toContain(`*${meta}*`);
    });
  }

  it('the implementer, which may write anyway, keeps its whole shell', () => {
    expect(opencode('implementer')).toMatch(/^ {2}bash: allow$/m);
  });

  for (const role of ['planner', 'implementer', 'reviewer', 'verifier']) {
    it(`the ${role} may read, but never .env files (opencode's own default keeps them from every agent)`, () => {
      expect(block(opencode(role), 'read')).toBe('    "*": allow\n    "*.env": deny\n    "*.env.*": deny\n');
    });
  }
});

describe("a host narrows a role's commands in its overlay", () => {
  it("the rendered shell allows only the overlay's subset, and the overlay body is still spliced", () => {
    const dir = host(
      {
        '.gateline/overlays/_all.md': '<!-- stub -->\n',
        '.gateline/overlays/reviewer.md': '---\ncommands: [git status, git diff]\n---\nOur policy.\n',
      },
      { adapters: ['opencode'] },
    );
    for (const role of ['planner', 'implementer', 'verifier']) writeFiles(dir, { [`.gateline/overlays/${role}.md`]: '<!-- stub -->\n' });
    const plan = planRender(locate(dir));
    expect(plan.problems).toEqual([]);
    const reviewer = plan.files.find((f) => f.path === '.opencode/agents/reviewer.md')?.content ?? '';
    const allowed = [...reviewer.matchAll(/^ {4}"([^"]+)": allow$/gm)].map((m) => m[1]).filter((p) => !p?.startsWith('*'));
    expect(allowed).toEqual(['git status', 'git status *', 'git diff', 'git diff *']);
    expect(reviewer).toContain('Our policy.');
    expect(reviewer).not.toContain('commands:');
  });
});

describe('an overlay that opens with a Markdown rule', () => {
  it('is policy text, not a frontmatter: it is spliced as written', () => {
    const dir = host({ '.gateline/overlays/_all.md': '---\nNo force pushes.\n---\nAsk first.\n' }, { adapters: ['claude-code'] });
    for (const role of ['planner', 'implementer', 'reviewer', 'verifier'])
      writeFiles(dir, { [`.gateline/overlays/${role}.md`]: '<!-- stub -->\n' });
    const plan = planRender(locate(dir));
    expect(plan.problems).toEqual([]);
    expect(plan.files[0]?.content).toContain('---\nNo force pushes.\n---\nAsk first.');
  });
});
