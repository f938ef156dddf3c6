import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { locate } from '../src/render/context.ts';
import type { Manifest } from '../src/render/manifest.ts';
import { planRender } from '../src/render/plan.ts';
import { tomlMultiline, tomlValue } from '../src/render/toml.ts';
import { yamlScalar } from '../src/render/yaml.ts';
import { grantArgs } from '../src/up/grants.ts';
import { checkout, gateline } from './helpers.ts';

// Every value that lands in YAML frontmatter or TOML is either refused, with its file and line,
// or read back by a real parser as exactly the value intended. Generated hostile strings go
// through the real planner (manifests and a role spec in a temp checkout) into four adapters, one
// per format: a csv tool string (Claude Code), a YAML tool list (Gemini CLI, Copilot), a permission
// map with command patterns (opencode) and TOML (Codex). Each agent file is parsed with the `yaml`
// package as YAML 1.2 and as YAML 1.1 (yes/on/0x1F read differently there), and with smol-toml.
// The frontmatter is also cut the way the runners cut it (regexes copied from their shipped code),
// which must find the same text as a line-by-line reader.

/** Claude Code 2.1.332 (`K0` in its binary): ends the frontmatter at the first `---` anywhere, not at a line. */
const CLAUDE_FRONTMATTER = /^---\s*\n([\s\S]*?)---\s*\n?/;
/** Gemini CLI 0.61.0 (`FRONTMATTER_REGEX`): ends it at the first line that starts with `---`. */
const GEMINI_FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n([\s\S]*))?/;

// Characters and strings a parser may read as something else, or that mean something in YAML, TOML,
// a shell or a tool rule: each must come back as written.
const FRAGMENTS = [
  ...['"', "'", '\\', ': ', ' #', '#', '-', '*', '&', '!', '|', '>', '%', '@', '`', '...', '? ', '[', ']', '{', '}', ',', '=', ' '],
  ...['yes', 'no', 'on', 'off', 'Y', 'n', '~', 'null', 'NULL', 'true', 'False', '0x1F', '0o17', '0777', '1_000', '1e3', '.5', '-1'],
  ...['.inf', '.NaN', '190:20:30', '2001-12-14', 'é', '日本', '😀', '\u00a0', '\ufeff', '\ufffe', '\u200b', '  ', "'''", '"""', '- x'],
  ...['{command}', 'tools: Write', 'Read', 'x', '<!--', '-->', '[Write]'],
];
// What the rules refuse wherever it lands: C0 (tab, CR and LF included), DEL, C1 (NEL), LS, PS, lone
// surrogates, and `---`.
const REFUSED = [
  '---',
  '\u0085',
  '\u2028',
  '\u2029',
  '\t',
  '\r',
  '\n',
  '\r\n',
  '\u0000',
  '\u007f',
  '\u009b',
  '\ud800',
  '\udfff',
  '\ntools: [Write]',
];
// What a tool rule may hold: anything but a parenthesis, a quote, a backslash, ',' and '#'.
const RULE_TEXT = [
  ': ',
  "'",
  '*',
  '&',
  '|',
  '>',
  '%',
  '@',
  '`',
  ' ',
  'yes',
  'é',
  '😀',
  '.',
  '-',
  '/',
  '!',
  '~',
  '[',
  ']',
  '{',
  '}',
  '\ufeff',
  'git diff:*',
];
// biome-ignore lint/suspicious/noControlCharactersInRegex: what a safe case must not draw.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ud800-\udfff]/;

function generator(seed: number) {
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return Math.floor(seed / 2 ** 8);
  };
  const rand = (n: number) => next() % n;
  const pick = <T>(list: readonly T[]): T => list[rand(list.length)] as T;
  // One case in three also draws what the rules refuse; the others should render, quoted right.
  const danger = rand(3) === 0;
  const codePoint = () => {
    const c = String.fromCodePoint(rand(0x3000));
    return danger || !CONTROL.test(c) ? c : 'z';
  };
  /** A hostile string: fragments, letters, a random code point now and then; sometimes empty or long. */
  const hostile = (): string => {
    const roll = rand(20);
    if (roll === 0) return '';
    if (roll === 1) return 'long '.repeat(400 + rand(400));
    let out = rand(2) ? pick(['a', 'B', 'model', 'Run ']) : '';
    for (let n = 1 + rand(4); n > 0; n--) out += rand(6) === 0 ? codePoint() : danger && rand(4) === 0 ? pick(REFUSED) : pick(FRAGMENTS);
    return out;
  };
  /** `plain`, often with a fragment after it; in a dangerous case sometimes anything. */
  const mild = (plain: string): string => (danger && rand(3) === 0 ? hostile() : `${plain}${rand(2) ? pick(FRAGMENTS) : ''}`);
  /** A tool name a manifest may hold (a distinct base per capability), with a rule of hostile text. */
  const tool = (cap: string, rules: boolean): string => {
    if (danger && rand(4) === 0) return `${hostile()}_${cap}`;
    const base = `${pick(['T', '-', '.x', '0x1F', '/a', '1e3', 'yes', 'on'])}_${cap}`;
    if (!rules || rand(2)) return base;
    return `${base}(${Array.from({ length: 1 + rand(4) }, () => pick(RULE_TEXT)).join('')})`;
  };
  return { rand, pick, hostile, mild, tool };
}

const VOCABULARY = ['read', 'search', 'edit', 'write', 'shell', 'web', 'delegate'] as const;
const EXTRA_KEYS = ['color', 'on', 'yes', 'null', 'y', 'True', 'max-turns', 'x_1'];
// Headless grants approve the manifest's own tools (grants-match-tool-map), through declared flags
// (argv-is-allow-listed): a tool with a rule in parentheses cannot be approved alone, so it is left out.
const HEADLESS = (g: ReturnType<typeof generator>, toolMap: Record<string, unknown>) => {
  const plain = (cap: string) => {
    const tool = (toolMap[cap] as string[] | undefined)?.[0];
    return tool !== undefined && !tool.includes('(') ? tool : undefined;
  };
  const grants = Object.fromEntries(
    VOCABULARY.flatMap((cap) => (plain(cap) !== undefined && g.rand(2) ? [[cap, ['--allowedTools', plain(cap) as string]]] : [])),
  );
  const shell = plain('shell');
  const commandGrant = shell === undefined ? undefined : ['--allowedTools', `${shell}({command}${g.rand(2) ? ':*' : ''})`];
  const approvals = [...Object.values(grants).map((f) => f[1] as string), ...(commandGrant ? [commandGrant[1] as string] : [])];
  return {
    command: 'runner',
    args: ['-p', '{prompt}', '--agent', '{role}'],
    flags: { '-p': ['{prompt}'], '--agent': ['{role}'], ...(approvals.length ? { '--allowedTools': approvals } : {}) },
    grants,
    ...(commandGrant ? { command_grant: commandGrant } : {}),
  };
};

interface Case {
  files: Record<string, string>;
  dispatch: string;
  body: string;
  /** Set when the role spec has a `commands:` line, even an empty one (then its shell may run nothing). */
  commands?: string[];
  manifests: Record<string, Record<string, unknown>>;
}

function generate(seed: number): Case {
  const g = generator(seed);
  const { rand, hostile, mild } = g;
  const dispatch = rand(4) ? hostile() : mild('Reviews code');
  const listed = rand(2) ? [] : Array.from({ length: 1 + rand(3) }, () => mild(g.pick(['git diff', 'npm test', 'ls -la', 'make'])));
  // What the role spec's `[a, b]` list says: items split at commas, without surrounding space.
  const inner = listed.join(', ').trim();
  const commands = !listed.length ? undefined : inner === '' ? [] : inner.split(',').map((item) => item.trim());
  // Written to disk as UTF-8, so a lone surrogate in the body could not survive anyway.
  const body = `Body ${hostile()}\n${hostile()}`.toWellFormed();
  // JSON-quoted in the role spec, with non-ASCII escaped or raw: either way the reader gets `dispatch`.
  const quoted = rand(2)
    ? JSON.stringify(dispatch)
    : JSON.stringify(dispatch).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const caps = ['read', 'search', 'shell', ...VOCABULARY.filter((c) => !['read', 'search', 'shell'].includes(c) && rand(2))];
  const role =
    `---\ndispatch: ${quoted}\ncapabilities: [${caps.join(', ')}]\ncapability_profile: deep\n` +
    (listed.length ? `commands: [${listed.join(', ')}]\n` : '') +
    `---\n${body}\n`;
  // A distinct base name per capability, so no tool is shared (that refusal names no line).
  const toolMap = (rules: boolean) => Object.fromEntries(VOCABULARY.map((cap) => [cap, [g.tool(cap, rules)]]));
  const extra = () =>
    Object.fromEntries(
      EXTRA_KEYS.filter(() => rand(3) === 0).map((key) => [
        key,
        [hostile(), mild('blue'), rand(2) === 0, g.pick([0, 7, -5, 0.25, 1e21, 1.5e-7, 2 ** 53, 123456.789])][rand(4)],
      ]),
    );
  const base = (name: string, style: string, filename = '{role}.md') => ({
    adapter: name,
    output_dir: `out/${name}`,
    filename,
    tools_style: style,
    roles: ['r'],
    model_map: { deep: rand(2) ? hostile() : mild('model-1') },
    extra_frontmatter: extra(),
    extra_frontmatter_keys: EXTRA_KEYS,
  });
  const permTools = toolMap(false);
  const manifests: Record<string, Record<string, unknown>> = {
    csv: { ...base('csv', 'csv'), tool_map: toolMap(true) },
    list: { ...base('list', 'yaml-list'), tool_map: toolMap(true) },
    perm: {
      ...base('perm', 'permission-map'),
      tool_map: permTools,
      // Patterns that repeat one another or the deny-all ('*'): each key may appear only once.
      shell_commands: {
        allow: ['{command}', `{command}${rand(3) ? mild(' *') : ''}`],
        deny: [mild('*>*'), mild('*|*'), ...(rand(3) ? [] : [g.pick(['*', 'git diff', 'make', '*>*'])])],
      },
      permission_denies: { [(permTools.read as string[])[0] as string]: [mild('*.env'), ...(rand(3) ? [] : ['*'])] },
    },
    // The TOML format has no tool list; a shell tool lets its headless run approve commands one by one.
    toml: { ...base('toml', 'codex-sandbox', '{role}.toml'), tool_map: { shell: ['Shell'] } },
  };
  for (const m of Object.values(manifests)) m.headless = HEADLESS(g, m.tool_map as Record<string, unknown>);
  const files: Record<string, string> = { 'roles/r.md': role };
  for (const [name, m] of Object.entries(manifests)) files[`adapters/${name}/manifest.json`] = JSON.stringify(m, null, 2);
  return { files, dispatch, body, commands, manifests };
}

/** The text between the opening `---` line and the next `---` line, as a line-by-line reader sees it. */
function frontmatterOf(text: string, where: string): string {
  const lines = text.split('\n');
  expect(lines[0], where).toBe('---');
  const close = lines.indexOf('---', 1);
  expect(close, where).toBeGreaterThan(0);
  const spec = lines.slice(1, close).join('\n');
  // The runners cut the same text: Claude Code's group keeps the last line break, Gemini's does not.
  expect(CLAUDE_FRONTMATTER.exec(text)?.[1], `${where}: Claude Code cuts the frontmatter elsewhere`).toBe(`${spec}\n`);
  expect(GEMINI_FRONTMATTER.exec(text)?.[1], `${where}: Gemini CLI cuts the frontmatter elsewhere`).toBe(spec);
  return spec;
}

/** The frontmatter as YAML 1.2 and YAML 1.1 read it: both must agree, without errors or warnings. */
function readYaml(text: string, where: string): unknown {
  const values = (['1.2', '1.1'] as const).map((version) => {
    const doc = parseDocument(text, { version, uniqueKeys: true });
    expect(
      [...doc.errors, ...doc.warnings].map((e) => e.message),
      `${where} (YAML ${version})`,
    ).toEqual([]);
    return doc.toJS();
  });
  expect(values[1], `${where}: YAML 1.1 reads it differently`).toEqual(values[0]);
  return values[0];
}

/** What the planner's manifest holds for one adapter, and the values the role should carry. */
function expected(c: Case, m: Manifest) {
  const tools = roleCaps(c).flatMap((cap) => m.toolMap[cap] ?? []);
  return { tools, model: m.modelMap.deep as string, extra: m.extraFrontmatter };
}

/** The body as a role spec's reader gives it: line ends made LF, leading blank lines and trailing space dropped. */
const bodyOf = (c: Case) => c.body.replace(/\r\n?/g, '\n').replace(/^\n+/, '').trimEnd();

function roleCaps(c: Case): string[] {
  return /capabilities: \[(.*)\]/.exec(c.files['roles/r.md'] as string)?.[1]?.split(', ') ?? [];
}

/** Claude Code's reading of a tools string: split on commas and spaces outside parentheses. */
function claudeTools(csv: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let word = '';
  for (const ch of csv) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (depth === 0 && (ch === ',' || ch === ' ')) {
      if (word) out.push(word);
      word = '';
    } else word += ch;
  }
  if (word) out.push(word);
  return out;
}

function permissionMap(c: Case, m: Manifest, tools: string[]): Record<string, unknown> {
  const map: Record<string, unknown> = { '*': 'deny' };
  const shell = m.toolMap.shell ?? [];
  for (const tool of tools) {
    const rules: [string, string][] = [];
    if (c.commands && m.shellCommands && shell.includes(tool)) {
      rules.push(['*', 'deny']);
      for (const command of c.commands) for (const p of m.shellCommands.allow) rules.push([p.replaceAll('{command}', command), 'allow']);
      for (const p of m.shellCommands.deny) rules.push([p, 'deny']);
    } else if (m.permissionDenies[tool]) {
      rules.push(['*', 'allow'], ...m.permissionDenies[tool].map((p): [string, string] => [p, 'deny']));
    } else {
      map[tool] = 'allow';
      continue;
    }
    // Each pattern once, with its last rule (the last match wins in opencode).
    const patterns: Record<string, string> = {};
    for (const [p, action] of rules) {
      delete patterns[p];
      patterns[p] = action;
    }
    map[tool] = patterns;
  }
  return map;
}

function checkCase(seed: number, styles: Record<string, number>): 'rendered' | 'refused' {
  const c = generate(seed);
  const dir = checkout(c.files, { shipped: false });
  const plan = planRender(locate(dir));
  const where = `seed ${seed}`;
  // Every refusal names its file and line.
  for (const p of plan.problems) {
    expect(p.file, `${where}: ${p.message}`).toMatch(/^(roles\/r\.md|adapters\/\w+\/manifest\.json)$/);
    expect(p.line, `${where}: ${p.file}: ${p.message}`).toBeGreaterThan(0);
  }
  // Every file planned is read back as intended, refusals elsewhere notwithstanding.
  for (const file of plan.files) {
    const m = plan.manifests.find((x) => x.adapter === file.adapter) as Manifest;
    const want = expected(c, m);
    const at = `${where}, ${file.path}`;
    styles[m.toolsStyle] = (styles[m.toolsStyle] ?? 0) + 1;
    if (m.toolsStyle === 'codex-sandbox') {
      const toml = parseToml(file.content);
      expect(toml, at).toEqual({
        name: 'r',
        description: c.dispatch,
        model: want.model,
        sandbox_mode: roleCaps(c).some((cap) => cap === 'edit' || cap === 'write') ? 'workspace-write' : 'read-only',
        web_search: roleCaps(c).includes('web') ? 'live' : 'disabled',
        ...want.extra,
        developer_instructions: `${bodyOf(c)}\n`,
      });
      continue;
    }
    const data = readYaml(frontmatterOf(file.content, at), at) as Record<string, unknown>;
    const tools =
      m.toolsStyle === 'csv' ? want.tools.join(', ') : m.toolsStyle === 'yaml-list' ? want.tools : permissionMap(c, m, want.tools);
    const key = m.toolsStyle === 'permission-map' ? 'permission' : 'tools';
    expect(data, at).toEqual({ name: 'r', description: c.dispatch, [key]: tools, model: want.model, ...want.extra });
    if (m.toolsStyle === 'csv') expect(claudeTools(data.tools as string), at).toEqual(want.tools);
    // The body follows the header untouched.
    expect(file.content.endsWith(`-->\n\n${bodyOf(c)}\n`), at).toBe(true);
    // A headless run approves each listed command by itself, as one argument, and nothing wider.
    if (m.headless?.commandGrant && c.commands) {
      const args = grantArgs(m.headless, { capabilities: roleCaps(c) as never, commands: c.commands });
      for (const command of c.commands) expect(args, at).toContain((m.headless.commandGrant[1] as string).replaceAll('{command}', command));
      for (let i = 0; i < args.length; i += 2) expect(args[i], at).toMatch(/^--allow/);
    }
  }
  return plan.files.length === 4 ? 'rendered' : 'refused';
}

describe('hostile values in agent files: refused with file and line, or read back exactly', () => {
  it('holds for 400 generated cases, both outcomes common', () => {
    const outcomes = { rendered: 0, refused: 0 };
    const styles: Record<string, number> = {};
    for (let seed = 1; seed <= 400; seed++) outcomes[checkCase(seed, styles)]++;
    const seen = JSON.stringify({ ...outcomes, ...styles });
    expect(outcomes.rendered, seen).toBeGreaterThan(25);
    expect(outcomes.refused, seen).toBeGreaterThan(100);
    // Every format is read back often, not only when nothing else was generated.
    for (const style of ['csv', 'yaml-list', 'permission-map', 'codex-sandbox']) expect(styles[style], seen).toBeGreaterThan(75);
  }, 120_000);

  it('the CLI writes what the planner planned, and refuses with exit 1, file and line', () => {
    let wrote = 0;
    let refused = 0;
    for (let seed = 1; seed <= 400 && (wrote < 3 || refused < 3); seed++) {
      const c = generate(seed);
      const dir = checkout(c.files, { shipped: false });
      const plan = planRender(locate(dir));
      const clean = plan.problems.length === 0;
      if (clean ? wrote >= 3 : refused >= 3) continue;
      const run = gateline(['render', '--root', dir], dir);
      if (clean) {
        expect(run.code, run.stderr).toBe(0);
        for (const file of plan.files) expect(readFileSync(join(dir, file.path), 'utf8')).toBe(file.content);
        wrote++;
      } else {
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(/(roles\/r\.md|manifest\.json):\d+: /);
        expect(run.stderr).not.toMatch(/\n\s+at /);
        expect(existsSync(join(dir, 'out'))).toBe(false);
        refused++;
      }
    }
    expect(wrote).toBeGreaterThanOrEqual(3);
    expect(refused).toBeGreaterThanOrEqual(3);
  }, 120_000);
});

describe('the quoting functions, one per format', () => {
  // Code points (never a lone surrogate: those are refused before rendering), alone and between
  // letters: each must read back as itself.
  const values: string[] = [];
  // Each of the first 2048, the General Punctuation block (LS, PS, zero widths) and the last BMP
  // blocks (BOM, noncharacters); a sample of the rest.
  const dense = (cp: number) => cp < 0x800 || (cp >= 0x2000 && cp < 0x2070) || cp >= 0xfe00;
  for (let cp = 0; cp <= 0x10ffff; cp += dense(cp) && cp <= 0xffff ? 1 : 251) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const ch = String.fromCodePoint(cp);
    values.push(ch, `a${ch}b`);
  }

  // In documents of 500 keys: a parser checks for repeated keys in quadratic time.
  const chunks = Array.from({ length: Math.ceil(values.length / 500) }, (_, i) => values.slice(i * 500, i * 500 + 500));
  const hex = (v: string) => `U+${v.codePointAt(v.length > 2 ? 1 : 0)?.toString(16)}`;

  it('yamlScalar: YAML 1.2 and 1.1 read every value back', () => {
    for (const chunk of chunks) {
      const read = readYaml(chunk.map((v, i) => `k${i}: ${yamlScalar(v)}`).join('\n'), 'every code point') as Record<string, unknown>;
      chunk.forEach((v, i) => {
        if (read[`k${i}`] !== v) expect(read[`k${i}`], hex(v)).toBe(v);
      });
    }
  });

  it('tomlValue and tomlMultiline: TOML reads every value back', () => {
    for (const chunk of chunks) {
      const read = parseToml(chunk.map((v, i) => `k${i} = ${tomlValue(v)}\nm${i} = ${tomlMultiline(v)}`).join('\n'));
      chunk.forEach((v, i) => {
        if (read[`k${i}`] !== v) expect(read[`k${i}`], hex(v)).toBe(v);
        if (read[`m${i}`] !== `${v}\n`) expect(read[`m${i}`], hex(v)).toBe(`${v}\n`);
      });
    }
  });

  it('refuse to write what cannot be written: a lone surrogate, and --- in YAML', () => {
    expect(() => yamlScalar('a\ud800')).toThrow(/unsafe frontmatter value/);
    expect(() => yamlScalar('a---b')).toThrow(/unsafe frontmatter value/);
    expect(() => tomlValue('\udfff')).toThrow(/lone surrogate/);
  });
});
