import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { locate } from '../src/render/context.ts';
import { RULES } from '../src/render/rules.ts';
import { hashTree } from '../src/shared/integrity.ts';
import { buildLock, stringifyLock } from '../src/shared/lock.ts';
import { FrameworkError, type Problem } from '../src/shared/problem.ts';
import { validate } from '../src/validate/validate.ts';
import { checkout, FIXTURE_MANIFEST, FIXTURE_ROLE, fixtureCheckout, gateline, git, host, testdir } from './helpers.ts';

// One refusing case (or more) per narrowing and containment rule, each run through the real
// pipeline (locate, then validate: the manifest loader, the planner, the disk comparison and the
// lock check), never by calling the rule directly: a rule that is dropped from the pipeline fails
// its case. A rule without a case fails the table itself.

const ROLE = FIXTURE_ROLE;
const MANIFEST = FIXTURE_MANIFEST;
const manifest = (change: Record<string, unknown>, name = 'test') => JSON.stringify({ ...MANIFEST, adapter: name, ...change }, null, 2);
const fw = fixtureCheckout;
const HEADLESS = {
  command: 'runner',
  args: ['{prompt}', '--agent', '{role}'],
  flags: { '--agent': ['{role}'] },
  positionals: ['{prompt}'],
};
const withManifest = (change: Record<string, unknown>) => fw({ 'adapters/test/manifest.json': manifest(change) });

/** What a user would be told: every problem of locate + validate. */
function problemsOf(dir: string, prefix?: string): Problem[] {
  try {
    return validate(locate(dir, prefix)).problems;
  } catch (error) {
    if (error instanceof FrameworkError) return error.problems;
    throw error;
  }
}

/** A host whose lock is rebuilt after `change`: what re-hashing an edited core into the lock gives. */
function rehashed(change: (core: string) => void): string {
  const dir = host({}, { adapters: ['claude-code'] });
  const core = join(dir, '.gateline/core');
  change(core);
  const lock = buildLock(hashTree(core), {
    version: '0.1.0',
    source: { type: 'embedded', package: 'create-gateline@0.1.0' },
    core: 'core',
    adapters: ['claude-code'],
  });
  writeFileSync(join(dir, '.gateline/framework-lock.json'), stringifyLock(lock));
  return dir;
}

type Case = [what: string, problems: () => Problem[]];

const gatelineRender = (dir: string) => gateline(['render'], dir).code;

/** Makes a checkout's stand-in .git a real repository with every file added, as a commit would hold them. */
function realGit(dir: string): void {
  rmSync(join(dir, '.git'), { recursive: true, force: true });
  git(dir, 'init', '-q');
  git(dir, 'add', '-A');
}

/** A hand-written agent file with extra frontmatter lines. */
const agentFile = (lines: string) => `---\ndescription: Mine.\n${lines ? `${lines}\n` : ''}---\nMine.\n`;

const CASES: Record<string, Case[]> = {
  'output-dir-in-repo': [
    ["'..' in output_dir", () => problemsOf(withManifest({ output_dir: '../out' }))],
    ['an absolute output_dir', () => problemsOf(withManifest({ output_dir: '/tmp/out' }))],
    ['an output_dir into .git', () => problemsOf(withManifest({ output_dir: '.git/hooks' }))],
  ],
  'filename-is-a-name': [
    ["a filename without '{role}'", () => problemsOf(withManifest({ filename: 'agent.md' }))],
    ['a filename with a path separator', () => problemsOf(withManifest({ filename: 'x/{role}.md' }))],
  ],
  'no-wildcard-tools': [
    ["'*'", () => problemsOf(withManifest({ tool_map: { read: ['*'] } }))],
    ["'Bash(*)'", () => problemsOf(withManifest({ tool_map: { read: ['Bash(*)'] } }))],
  ],
  'plain-tool-names': [
    ['a comma inside a tool name', () => problemsOf(withManifest({ tool_map: { read: ['Read, Write'] } }))],
    ['a comma inside a rule', () => problemsOf(withManifest({ tool_map: { read: ['Bash(a,*)'] } }))],
  ],
  'permission-names-are-plain': [
    [
      "a '(...)' rule in a permission-map tool",
      () => problemsOf(withManifest({ tools_style: 'permission-map', tool_map: { read: ['read(src)'] } })),
    ],
  ],
  'extra-frontmatter-allow-listed': [
    ["'hooks', not in the allow-list", () => problemsOf(withManifest({ extra_frontmatter: { hooks: 'x' } }))],
    [
      "'disable' (opencode then runs its all-tools default agent)",
      () => problemsOf(withManifest({ extra_frontmatter_keys: ['color'], extra_frontmatter: { disable: true } })),
    ],
    [
      "'Color' when the allow-list has 'color' (keys match exactly)",
      () => problemsOf(withManifest({ extra_frontmatter_keys: ['color'], extra_frontmatter: { Color: 'red' } })),
    ],
    ["an allow-list naming 'permission'", () => problemsOf(withManifest({ extra_frontmatter_keys: ['permission'] }))],
  ],
  'extra-frontmatter-keeps-rendered-keys': [
    ["'model'", () => problemsOf(withManifest({ extra_frontmatter: { model: 'other' } }))],
    ["'description'", () => problemsOf(withManifest({ extra_frontmatter: { description: 'other' } }))],
  ],
  'output-dir-no-link': [
    [
      'a linked output folder that leaves the repository',
      () => {
        const dir = fw();
        symlinkSync(testdir(), join(dir, 'out'));
        return problemsOf(dir);
      },
    ],
    [
      'a linked output folder into .git',
      () => {
        const dir = fw();
        mkdirSync(join(dir, '.git/hooks'), { recursive: true });
        symlinkSync(join(dir, '.git/hooks'), join(dir, 'out'));
        return problemsOf(dir);
      },
    ],
  ],
  floor: [["a role lacking the floor's 'shell'", () => problemsOf(withManifest({ floor: { shell: 'commands always run' } }))]],
  'no-capability-leak': [
    [
      "an alias of another capability's tool (Task is Agent in Claude Code)",
      () => problemsOf(withManifest({ tool_map: { read: ['Task'], delegate: ['Agent'] }, tool_aliases: { Task: 'Agent' } })),
    ],
    ['a tool mapped from read and from edit', () => problemsOf(withManifest({ tool_map: { read: ['Read'], edit: ['Read'] } }))],
    [
      'a rule of a tool mapped from a lacking capability',
      () => problemsOf(withManifest({ tool_map: { read: ['Bash(git log:*)'], shell: ['Bash'] } })),
    ],
  ],
  'one-path-one-adapter': [
    ['two adapters rendering the same path', () => problemsOf(fw({ 'adapters/other/manifest.json': manifest({}, 'other') }))],
    [
      "the same folder written 'out/', and another file name pattern that meets the first",
      () =>
        problemsOf(
          fw({
            'roles/a-r.md': FIXTURE_ROLE,
            'adapters/test/manifest.json': manifest({ roles: ['r', 'a-r'] }),
            'adapters/other/manifest.json': manifest({ output_dir: 'out/', filename: 'a-{role}.md', roles: ['r'] }, 'other'),
          }),
        ),
    ],
  ],
  'regular-files-only': [
    [
      'a symbolic link at a rendered path',
      () => {
        const dir = fw({ 'elsewhere.md': 'x\n' });
        mkdirSync(join(dir, 'out'));
        symlinkSync(join(dir, 'elsewhere.md'), join(dir, 'out/r.md'));
        return problemsOf(dir);
      },
    ],
  ],
  'hand-written-stays': [['a hand-written file at a rendered path', () => problemsOf(fw({ 'out/r.md': '---\nname: r\n---\nMine.\n' }))]],
  'prefix-is-plain': [
    ['a prefix with a space', () => problemsOf(fw(), 'my prefix')],
    ["a prefix with '..'", () => problemsOf(fw(), '../up')],
  ],
  'core-in-repo': [
    [
      "a lock whose core is '..'",
      () => {
        const dir = host({}, { adapters: ['claude-code'] });
        const lockFile = join(dir, '.gateline/framework-lock.json');
        writeFileSync(lockFile, readFileSync(lockFile, 'utf8').replace('"core": "core"', '"core": "../.."'));
        return problemsOf(dir);
      },
    ],
  ],
  'core-matches-lock': [
    [
      'an edited vendored file',
      () => {
        const dir = host({}, { adapters: ['claude-code'] });
        writeFileSync(join(dir, '.gateline/core/roles/reviewer.md'), ROLE);
        return problemsOf(dir);
      },
    ],
    [
      'a vendored file replaced by a link, the lock re-hashed',
      () =>
        problemsOf(
          rehashed((core) => {
            const outside = join(testdir(), 'rules.ts');
            writeFileSync(outside, readFileSync(join(core, 'src/render/rules.ts')));
            rmSync(join(core, 'src/render/rules.ts'));
            symlinkSync(outside, join(core, 'src/render/rules.ts'));
          }),
        ),
    ],
  ],
  'rendered-names-unclaimed': [
    [
      "a hand-written Claude agent in a subfolder named 'reviewer'",
      () => problemsOf(checkout({ '.claude/agents/zz/notes.md': agentFile('name: reviewer\ntools: Read, Write, Edit, Bash') })),
    ],
    [
      "an opencode agent named 'reviewer' in its frontmatter",
      () => problemsOf(checkout({ '.opencode/agents/zz/notes.md': agentFile('name: reviewer') })),
    ],
    [
      "an opencode agent whose file stem is 'reviewer' (the singular folder)",
      () => problemsOf(checkout({ '.opencode/agent/reviewer.md': agentFile('') })),
    ],
    ["an opencode legacy mode named 'verifier'", () => problemsOf(checkout({ '.opencode/modes/verifier.md': agentFile('') }))],
    ["a Gemini CLI agent named 'planner'", () => problemsOf(checkout({ '.gemini/agents/notes.md': agentFile('name: planner') }))],
    [
      "a Gemini CLI remote agent list naming 'implementer'",
      () =>
        problemsOf(checkout({ '.gemini/agents/remote.md': '---\n- name: x\n  kind: remote\n- kind: remote\n  name: implementer\n---\n' })),
    ],
    [
      "a Copilot agent that sorts first, named 'reviewer'",
      () => problemsOf(checkout({ '.github/agents/aa.md': agentFile('name: reviewer') })),
    ],
    ["a Copilot agent whose file stem is 'verifier'", () => problemsOf(checkout({ '.github/agents/verifier.md': agentFile('') }))],
    [
      "a Codex agent named 'implementer' after a multi-line string",
      () =>
        problemsOf(
          checkout({
            '.codex/agents/x/a.toml': 'developer_instructions = """\nname = "x"\n"""\nname = "implementer"\ndescription = "x"\n',
          }),
        ),
    ],
    [
      "the name gateline up runs opencode's reviewer under",
      () => problemsOf(checkout({ '.opencode/agents/gateline-reviewer.md': agentFile('disable: true') })),
    ],
    ["'Reviewer' (case)", () => problemsOf(checkout({ '.claude/agents/x.md': agentFile('name: Reviewer') }))],
    ["'r\u0435viewer' (a Cyrillic e)", () => problemsOf(checkout({ '.claude/agents/x.md': agentFile('name: r\u0435viewer') }))],
    ['a zero-width space inside the name', () => problemsOf(checkout({ '.claude/agents/x.md': agentFile('name: re\u200bviewer') }))],
    [
      'full-width letters',
      () => problemsOf(checkout({ '.claude/agents/x.md': agentFile('name: \uff52\uff45\uff56\uff49\uff45\uff57\uff45\uff52') })),
    ],
    ['an escaped double-quoted name', () => problemsOf(checkout({ '.claude/agents/x.md': agentFile('name: "r\\x65viewer"') }))],
    ['a quoted key and a comment', () => problemsOf(checkout({ '.claude/agents/x.md': agentFile("'name' : reviewer # mine") }))],
    ['a lone CR before the name', () => problemsOf(checkout({ '.claude/agents/x.md': '---\ndescription: x\rname: reviewer\n---\n' }))],
    [
      'a link, inside the repository, to a file named so',
      () => {
        const dir = checkout({ 'notes/agent.md': agentFile('name: reviewer') });
        mkdirSync(join(dir, '.claude/agents'), { recursive: true });
        symlinkSync(join(dir, 'notes/agent.md'), join(dir, '.claude/agents/linked.md'));
        return problemsOf(dir);
      },
    ],
    [
      "a link to another runner's agent folder (Claude Code reads opencode's reviewer as its own)",
      () => {
        const dir = checkout();
        expect(gatelineRender(dir)).toBe(0);
        symlinkSync('../../.opencode/agents', join(dir, '.claude/agents/oc'));
        return problemsOf(dir);
      },
    ],
    [
      'an agent folder below the root, tracked by git (Claude Code reads it when started there)',
      () => {
        const dir = checkout({ 'packages/app/.claude/agents/notes.md': agentFile('name: reviewer') });
        realGit(dir);
        return problemsOf(dir);
      },
    ],
  ],
  'agent-names-readable': [
    ['a name written as a block scalar', () => problemsOf(checkout({ '.claude/agents/x.md': agentFile('name: |\n  reviewer') }))],
    ['a name on a continuation line', () => problemsOf(checkout({ '.claude/agents/x.md': agentFile('name: re\n  viewer') }))],
    ['a name from an alias', () => problemsOf(checkout({ '.claude/agents/x.md': agentFile('x: &n reviewer\nname: *n') }))],
    ['a merge key', () => problemsOf(checkout({ '.claude/agents/x.md': agentFile('<<: {name: reviewer}') }))],
    ['a flow mapping', () => problemsOf(checkout({ '.claude/agents/x.md': '---\n{name: reviewer, description: x}\n---\n' }))],
    ['a complex key', () => problemsOf(checkout({ '.claude/agents/x.md': agentFile('? name\n: reviewer') }))],
    ['a quoted name over two lines', () => problemsOf(checkout({ '.claude/agents/x.md': agentFile('name: "re\n  viewer"') }))],
    [
      'a frontmatter longer than gateline reads',
      () => problemsOf(checkout({ '.claude/agents/x.md': `---\ndescription: x\n${'# pad\n'.repeat(200_000)}name: reviewer\n---\n` })),
    ],
    [
      'a Codex name past the first MiB',
      () => problemsOf(checkout({ '.codex/agents/x.toml': `description = "${'x'.repeat(1_100_000)}"\nname = "implementer"\n` })),
    ],
    ['a Codex name as a multi-line string', () => problemsOf(checkout({ '.codex/agents/x.toml': 'name = """\nimplementer"""\n' }))],
    [
      'a link that leaves the repository',
      () => {
        const dir = checkout();
        const outside = join(testdir(), 'agent.md');
        writeFileSync(outside, agentFile('name: reviewer'));
        mkdirSync(join(dir, '.claude/agents'), { recursive: true });
        symlinkSync(outside, join(dir, '.claude/agents/outside.md'));
        return problemsOf(dir);
      },
    ],
    [
      'a linked folder that leaves the repository',
      () => {
        const dir = checkout();
        mkdirSync(join(dir, '.opencode/agents'), { recursive: true });
        symlinkSync(testdir({ 'x.md': agentFile('') }), join(dir, '.opencode/agents/team'));
        return problemsOf(dir);
      },
    ],
    [
      "an agent folder that is a link leaving the repository (opencode's .opencode/agent)",
      () => {
        const dir = checkout();
        mkdirSync(join(dir, '.opencode'), { recursive: true });
        symlinkSync(testdir({ 'reviewer.md': agentFile('') }), join(dir, '.opencode/agent'));
        return problemsOf(dir);
      },
    ],
  ],
  'prefix-outside-discovery': [
    [
      "a host whose prefix is inside opencode's agent folder",
      () => problemsOf(host({}, { adapters: ['claude-code'], prefix: '.opencode/agents' }), '.opencode/agents'),
    ],
    ["a host whose prefix is above Claude Code's", () => problemsOf(host({}, { adapters: ['claude-code'], prefix: '.claude' }), '.claude')],
    [
      "a host whose prefix is Claude Code's folder below a subfolder",
      () => problemsOf(host({}, { adapters: ['claude-code'], prefix: 'tools/.claude' }), 'tools/.claude'),
    ],
  ],
  'overlays-in-place': [
    ['an emptied overlay', () => problemsOf(host({ '.gateline/overlays/_all.md': '\n' }, { adapters: ['claude-code'] }))],
  ],
  'command-prefixes-are-plain': [
    ...[
      ['a wildcard', 'git *'],
      ["';'", 'git status; rm -rf x'],
      ["'&&'", 'npm test && echo x'],
      ["'|'", 'git log | tee out'],
      ["'>'", 'git diff > out.txt'],
      ['a backtick', 'echo `id`'],
      ["'$('", 'echo $(id)'],
      ['an empty prefix', '" "'],
    ].map(
      ([what, command]): Case => [
        `${what} in commands`,
        () =>
          problemsOf(
            fw({
              'roles/r.md': ROLE.replace('[read]', '[read, shell]').replace('---\nBody', `commands: [git diff, ${command}]\n---\nBody`),
            }),
          ),
      ],
    ),
    [
      "commands on a role without 'shell'",
      () => problemsOf(fw({ 'roles/r.md': ROLE.replace('---\nBody', 'commands: [git diff]\n---\nBody') })),
    ],
  ],
  'inputs-stay-inside': [
    [
      'an overlay linked to a file outside the repository (and its content is never shown)',
      () => {
        const secret = join(testdir(), 'secret.md');
        writeFileSync(secret, 'TOP-SECRET-CONTENT\n');
        const dir = host({}, { adapters: ['claude-code'] });
        mkdirSync(join(dir, '.gateline/overlays'), { recursive: true });
        symlinkSync(secret, join(dir, '.gateline/overlays/_all.md'));
        const found = problemsOf(dir);
        expect(JSON.stringify(found)).not.toContain('TOP-SECRET');
        return found;
      },
    ],
    [
      'a role spec linked outside the repository',
      () => {
        const outside = join(testdir(), 'r.md');
        writeFileSync(outside, ROLE);
        const dir = fw();
        rmSync(join(dir, 'roles/r.md'));
        symlinkSync(outside, join(dir, 'roles/r.md'));
        return problemsOf(dir);
      },
    ],
    [
      'a manifest linked outside the repository',
      () => {
        const outside = join(testdir(), 'manifest.json');
        writeFileSync(outside, manifest({}));
        const dir = fw();
        rmSync(join(dir, 'adapters/test/manifest.json'));
        symlinkSync(outside, join(dir, 'adapters/test/manifest.json'));
        return problemsOf(dir);
      },
    ],
  ],
  'no-control-characters': [
    [
      'a carriage return that smuggles a tool list into a rule',
      () => problemsOf(withManifest({ tool_map: { read: ['Glob(x\rtools:\r  - Read\r  - Write)'] } })),
    ],
    ['a DEL in the dispatch line', () => problemsOf(fw({ 'roles/r.md': ROLE.replace('Test role.', 'Test\u007f role.') }))],
    ['a lone surrogate in a model', () => problemsOf(withManifest({ model_map: { deep: 'm\ud800' } }))],
    [
      'a line separator in a shell pattern',
      () => problemsOf(withManifest({ tools_style: 'permission-map', shell_commands: { allow: ['{command}'], deny: ['*>*\u2028x'] } })),
    ],
    ['a line separator in extra frontmatter', () => problemsOf(withManifest({ extra_frontmatter: { color: 'red\u2028tools: Write' } }))],
  ],
  'no-fence-in-values': [
    [
      "'---' in the dispatch line (Claude Code would end the frontmatter there and drop the tool list)",
      () => problemsOf(fw({ 'roles/r.md': ROLE.replace('Test role.', 'Test---role.') })),
    ],
    ["'---' in a tool name", () => problemsOf(withManifest({ tool_map: { read: ['Read---x'] } }))],
    ["'---' in a role name", () => problemsOf(withManifest({ roles: ['r---x'] }))],
    ["'---' in a model", () => problemsOf(withManifest({ model_map: { deep: 'a---b' } }))],
  ],
  'command-patterns-start-with-command': [
    [
      'an allow pattern that lets something run before the listed command',
      () => problemsOf(withManifest({ tools_style: 'permission-map', shell_commands: { allow: ['* {command}'] } })),
    ],
    ['shell_commands on a csv adapter', () => problemsOf(withManifest({ shell_commands: { allow: ['{command}'] } }))],
    [
      'shell_commands without deny patterns',
      () => problemsOf(withManifest({ tools_style: 'permission-map', shell_commands: { allow: ['{command}'] } })),
    ],
  ],
  'commands-narrow-the-shell': [
    [
      'a permission-map adapter with only a command grant (its agent file would hold the whole shell)',
      () =>
        problemsOf(
          fw({
            'roles/r.md': ROLE.replace('[read]', '[read, shell]').replace('---\nBody', 'commands: [git status]\n---\nBody'),
            'adapters/test/manifest.json': manifest({
              tools_style: 'permission-map',
              tool_map: { read: ['read'], shell: ['bash'] },
              headless: {
                ...HEADLESS,
                command_grant: ['--allow-tool', 'shell({command})'],
                flags: { ...HEADLESS.flags, '--allow-tool': ['shell({command})'] },
                approval_names: { bash: 'shell' },
              },
            }),
          }),
        ),
    ],
    [
      'a command grant on a runner that is not handed the agent file',
      () =>
        problemsOf(
          fw({
            'roles/r.md': ROLE.replace('[read]', '[read, shell]').replace('---\nBody', 'commands: [git status]\n---\nBody'),
            'adapters/test/manifest.json': manifest({
              tool_map: { read: ['Read'], shell: ['Bash'] },
              headless: {
                command: 'runner',
                args: ['{prompt}'],
                positionals: ['{prompt}'],
                flags: { '--allowedTools': ['Bash({command}:*)'] },
                command_grant: ['--allowedTools', 'Bash({command}:*)'],
              },
            }),
          }),
        ),
    ],
    [
      'a role with commands on a permission-map adapter without shell_commands',
      () =>
        problemsOf(
          fw({
            'roles/r.md': ROLE.replace('[read]', '[read, shell]').replace('---\nBody', 'commands: [git status]\n---\nBody'),
            'adapters/test/manifest.json': manifest({ tools_style: 'permission-map', tool_map: { read: ['read'], shell: ['bash'] } }),
          }),
        ),
    ],
  ],
  'overlay-commands-narrow': [
    [
      "an overlay that adds a command to the reviewer's list",
      () =>
        problemsOf(
          host({ '.gateline/overlays/reviewer.md': '---\ncommands: [git status, rm -rf]\n---\nPolicy.\n' }, { adapters: ['claude-code'] }),
        ),
    ],
    [
      'a command listed twice (opencode would read one key twice)',
      () =>
        problemsOf(
          host({ '.gateline/overlays/reviewer.md': '---\ncommands: [git status, git status]\n---\n' }, { adapters: ['claude-code'] }),
        ),
    ],
    [
      'commands in _all.md',
      () => {
        const found = problemsOf(
          host({ '.gateline/overlays/_all.md': '---\ncommands: [git status]\n---\n' }, { adapters: ['claude-code'] }),
        );
        expect(
          found.filter((p) => p.rule === 'overlay-commands-narrow'),
          'reported once, not once per role',
        ).toHaveLength(1);
        return found;
      },
    ],
    [
      'commands for a role that lists none (the implementer)',
      () => problemsOf(host({ '.gateline/overlays/implementer.md': '---\ncommands: [git status]\n---\n' }, { adapters: ['claude-code'] })),
    ],
  ],
  'grants-approve-one-tool': [
    [
      'a settings flag in grants',
      () => problemsOf(withManifest({ headless: { ...HEADLESS, grants: { read: ['--settings', '{"permissions":{"allow":["Bash"]}}'] } } })),
    ],
    [
      'a mode flag in grants',
      () => problemsOf(withManifest({ headless: { ...HEADLESS, grants: { read: ['--permission-mode', 'acceptEdits'] } } })),
    ],
    [
      'an allow-all flag in grants',
      () => problemsOf(withManifest({ headless: { ...HEADLESS, grants: { read: ['--allow-all-tools', 'x'] } } })),
    ],
    [
      'a command grant that adds a bare shell',
      () =>
        problemsOf(
          withManifest({ headless: { ...HEADLESS, command_grant: ['--allowedTools', 'Bash({command}:*)', '--allowedTools', 'Bash'] } }),
        ),
    ],
    ['config_dir_env naming PATH', () => problemsOf(withManifest({ headless: { ...HEADLESS, config_dir_env: 'PATH' } }))],
  ],
  'argv-is-allow-listed': [
    [
      'a bypass flag declared safe',
      () => problemsOf(withManifest({ headless: { ...HEADLESS, flags: { '--dangerously-skip-permissions': [] } } })),
    ],
    [
      'an auto-accepting mode',
      () => problemsOf(withManifest({ headless: { ...HEADLESS, flags: { '--permission-mode': ['acceptEdits'] } } })),
    ],
    ['an approve-all mode', () => problemsOf(withManifest({ headless: { ...HEADLESS, flags: { '--approval-mode': ['yolo'] } } }))],
    [
      'settings JSON that sets a mode through a \\u escape',
      () =>
        problemsOf(
          withManifest({
            headless: { ...HEADLESS, flags: { '--settings': ['{"permissions":{"defaultMode":"bypass\\u0050ermissions"}}'] } },
          }),
        ),
    ],
    [
      'settings JSON that allows a tool',
      () => problemsOf(withManifest({ headless: { ...HEADLESS, flags: { '--settings': ['{"permissions":{"allow":["Bash"]}}'] } } })),
    ],
    ['a settings file', () => problemsOf(withManifest({ headless: { ...HEADLESS, flags: { '--settings': ['settings.json'] } } }))],
    ['a TOML config override', () => problemsOf(withManifest({ headless: { ...HEADLESS, flags: { '-c': ["approval_policy='never'"] } } }))],
    ['grouped short flags', () => problemsOf(withManifest({ headless: { ...HEADLESS, flags: { '-dy': [] } } }))],
    ['a camelCase variant', () => problemsOf(withManifest({ headless: { ...HEADLESS, flags: { '--approvalMode': ['default'] } } }))],
    ['a danger sandbox', () => problemsOf(withManifest({ headless: { ...HEADLESS, flags: { '--sandbox': ['danger-full-access'] } } }))],
    ['an undeclared flag in args', () => problemsOf(withManifest({ headless: { ...HEADLESS, args: [...HEADLESS.args, '--yolo'] } }))],
    ['an undeclared value in args', () => problemsOf(withManifest({ headless: { ...HEADLESS, args: ['{prompt}', '--agent', 'wide'] } }))],
    [
      'an approval in args, for every role',
      () =>
        problemsOf(
          withManifest({
            headless: {
              ...HEADLESS,
              args: [...HEADLESS.args, '--allowedTools', 'Read'],
              flags: { ...HEADLESS.flags, '--allowedTools': ['Read'] },
            },
          }),
        ),
    ],
    [
      'a mode flag in grants',
      () =>
        problemsOf(
          withManifest({
            headless: { ...HEADLESS, flags: { ...HEADLESS.flags, '--model': ['{model}'] }, grants: { read: ['--model', '{model}'] } },
          }),
        ),
    ],
    ['an unknown positional', () => problemsOf(withManifest({ headless: { ...HEADLESS, positionals: ['{prompt}', 'VAR=1'] } }))],
    [
      'a placeholder flag whose value could be read as a flag',
      () => problemsOf(withManifest({ headless: { ...HEADLESS, flags: { '--agent': ['--yolo{role}'] } } })),
    ],
  ],
  'grants-match-tool-map': [
    [
      'Bash approved under read',
      () =>
        problemsOf(
          withManifest({
            headless: {
              ...HEADLESS,
              flags: { ...HEADLESS.flags, '--allowedTools': ['Bash'] },
              grants: { read: ['--allowedTools', 'Bash'] },
            },
          }),
        ),
    ],
    [
      'an approval name that turns read into the shell',
      () =>
        problemsOf(
          withManifest({
            tool_map: { read: ['Read'], shell: ['Bash'] },
            headless: {
              ...HEADLESS,
              flags: { ...HEADLESS.flags, '--allow-tool': ['shell'] },
              approval_names: { Read: 'shell', Bash: 'shell' },
              grants: { read: ['--allow-tool', 'shell'] },
            },
          }),
        ),
    ],
    [
      'a command grant for a tool that is not the shell',
      () =>
        problemsOf(
          withManifest({
            headless: {
              ...HEADLESS,
              flags: { ...HEADLESS.flags, '--allowedTools': ['Read({command})'] },
              command_grant: ['--allowedTools', 'Read({command})'],
            },
          }),
        ),
    ],
  ],
  'session-only-on-resume': [
    [
      "'{session}' in headless args",
      () => problemsOf(withManifest({ headless: { command: 'runner', args: ['--session', '{session}', '{prompt}'] } })),
    ],
  ],
};

describe('the narrowing and containment rules', () => {
  it('every rule has a refusing case, and every case names a rule', () => {
    expect(Object.keys(CASES).sort()).toEqual(RULES.map((r) => r.ruleName).sort());
  });

  it('the shipped roles and adapters break none of them, in a checkout and in a host', () => {
    expect(problemsOf(checkout()).filter((p) => p.rule)).toEqual([]);
    const dir = host({ '.gateline/overlays/_all.md': '<!-- stub -->\n' }, { adapters: ['claude-code'] });
    for (const role of ['planner', 'implementer', 'reviewer', 'verifier']) writeFileSync(join(dir, `.gateline/overlays/${role}.md`), 'x\n');
    expect(problemsOf(dir).filter((p) => p.rule)).toEqual([]);
  });

  for (const [name, cases] of Object.entries(CASES)) {
    describe(name, () => {
      for (const [what, problems] of cases) {
        it(`refuses ${what}`, () => {
          const found = problems();
          expect(found.filter((p) => p.rule === name).length, JSON.stringify(found, null, 1)).toBeGreaterThan(0);
        });
      }
    });
  }
});
