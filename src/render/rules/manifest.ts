import { checkRelativePath } from '../../shared/paths.ts';
import type { Problem } from '../../shared/problem.ts';
import { lineOfJsonKey } from '../../shared/text.ts';
import { type ManifestInput, rule } from './rule.ts';

// The rules a manifest must pass on its own, and the control-character rule for every value
// written into an agent file.

// Keys the renderer writes itself, from the role spec and its capabilities: extra_frontmatter
// may never set them, and an allow-list may never name them. Compared without case, '-', '_'.
const RENDERED_KEYS = ['name', 'description', 'model', 'developerinstructions', 'tools', 'permission', 'sandboxmode', 'websearch'];

/** A runner tool name: a word, optionally with a parenthesised rule (`Bash(git diff:*)`). */
// Inside the parentheses: no ',' (runners split tool lists on it) and no '#' (YAML comments).
const TOOL_NAME = /^[A-Za-z0-9_.\-/]+(\([^()\n"\\,#]*\))?$/;
/** A parenthesised rule that matches everything (`Bash(*)`) is the bare tool: a wildcard too. */
const WILDCARD_RULE = /\(\s*[*?:\s]*\)$/;
const isWildcard = (tool: string) => /[*?]/.test(tool.replace(/\(.*\)$/, '')) || WILDCARD_RULE.test(tool);

// C0 and C1 controls, DEL, the Unicode line and paragraph separators, and unpaired surrogates:
// each is read as a line break by some YAML parser, or makes a TOML file invalid.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A string that lands in an agent file, and where it is written. */
export interface WrittenValue {
  file: string;
  /** A line, or how to find it: a manifest's lines are looked up only for a problem. */
  line?: number | (() => number | undefined);
  what: string;
  value: string;
}

/** Every string of a manifest that the renderer writes into an agent file, with its key. */
export function manifestValues(m: ManifestInput): WrittenValue[] {
  const out: WrittenValue[] = [];
  // A manifest may list thousands of roles: one line finder per key, not one per value.
  const lines = new Map<string, () => number | undefined>();
  const add = (key: string, name: string, value: unknown) => {
    if (typeof value !== 'string') return;
    let line = lines.get(key);
    if (!line) {
      line = () => lineOfJsonKey(m.text, key);
      lines.set(key, line);
    }
    out.push({ file: m.file, line, what: `'${key}' '${name}'`, value });
  };
  for (const [cap, tool] of mappedTools(m)) add('tool_map', cap, tool);
  const shell = m.json.shell_commands as Record<string, unknown> | undefined;
  for (const side of ['allow', 'deny']) {
    const list = shell?.[side];
    if (Array.isArray(list)) for (const p of list) add('shell_commands', side, p);
  }
  const denies = m.json.permission_denies;
  if (typeof denies === 'object' && denies !== null)
    for (const [permission, list] of Object.entries(denies))
      if (Array.isArray(list)) for (const p of list) add('permission_denies', permission, p);
  if (Array.isArray(m.json.roles)) for (const role of m.json.roles) add('roles', 'role', role);
  for (const key of ['model_map', 'model_overrides', 'extra_frontmatter']) {
    const obj = m.json[key];
    if (typeof obj === 'object' && obj !== null) for (const [name, value] of Object.entries(obj)) add(key, name, value);
  }
  return out;
}

/** Where a written value's problem is: its file, and its line when it has one. */
function valueAt(v: WrittenValue): Omit<Problem, 'message'> {
  const line = typeof v.line === 'function' ? v.line() : v.line;
  return { file: v.file, ...(line ? { line } : {}) };
}

const keyProblem = (m: ManifestInput, key: string, message: string): Problem => ({
  file: m.file,
  line: lineOfJsonKey(m.text, key),
  message: `'${key}' ${message}`,
});

/** Each (capability, tool) pair of a manifest's tool_map that is an array of strings. */
function mappedTools(m: ManifestInput): [string, string][] {
  const map = m.json.tool_map;
  if (typeof map !== 'object' || map === null) return [];
  return Object.entries(map).flatMap(([cap, tools]) =>
    Array.isArray(tools) ? tools.filter((t): t is string => typeof t === 'string').map((t): [string, string] => [cap, t]) : [],
  );
}

/** The manifest's `extra_frontmatter_keys`: the keys its runner is known to read without granting anything. */
function allowedKeys(m: ManifestInput): string[] {
  const list = m.json.extra_frontmatter_keys;
  return Array.isArray(list) ? list.filter((k): k is string => typeof k === 'string') : [];
}

function extraKeys(m: ManifestInput): string[] {
  const extra = m.json.extra_frontmatter;
  return typeof extra === 'object' && extra !== null && !Array.isArray(extra) ? Object.keys(extra) : [];
}

const norm = (key: string) => key.toLowerCase().replace(/[-_]/g, '');

// Flags that carry configuration or a mode, never an approval of one tool: refused in grants.
const CONFIG_FLAG = /^--?(settings|permission-?mode|agents?|mcp-?config|config|approval-?mode|sandbox|add-?dir|c|s|a|p|y)(=|$)/i;

/** Why a grant fragment is not a list of approval pairs (`--allowedTools Write`), or undefined. */
function grantFlaw(fragment: unknown, command: boolean): string | undefined {
  if (!Array.isArray(fragment) || fragment.length === 0 || fragment.length % 2 !== 0)
    return 'must be flag and value pairs (e.g. ["--allowedTools", "Write"])';
  for (let i = 0; i < fragment.length; i += 2) {
    const [flag, value] = [String(fragment[i]), String(fragment[i + 1])];
    if (!/^--allow[A-Za-z-]*$/.test(flag) || CONFIG_FLAG.test(flag) || /all/i.test(flag.slice(7)))
      return `has '${flag}', which is not an approval of one tool (--allow... <tool>)`;
    if (/^[*]$|^all$/i.test(value) || /\(\s*\*?\s*\)$/.test(value)) return `approves '${value}', which is every tool`;
  }
  const templated = fragment.filter((a) => String(a).includes('{command}')).length;
  if (command && (fragment.length !== 2 || templated !== 1)) return "must be one pair whose value holds '{command}' once";
  if (!command && templated) return "may not use '{command}' (that is command_grant's)";
  return undefined;
}

export const manifestRules = {
  outputDirInRepo: rule(
    'output-dir-in-repo',
    "output_dir is relative, without '..', empty parts or .git",
    (m: ManifestInput): Problem[] => {
      const problems: Problem[] = [];
      const dir = m.json.output_dir;
      if (typeof dir === 'string' && dir !== '') checkRelativePath(dir, (message) => problems.push(keyProblem(m, 'output_dir', message)));
      return problems;
    },
  ),

  filenameIsAName: rule(
    'filename-is-a-name',
    "filename holds '{role}', no path separator, and does not start with '.'",
    (m: ManifestInput): Problem[] => {
      const name = m.json.filename;
      if (typeof name !== 'string' || name === '') return [];
      const problems: Problem[] = [];
      if (!name.includes('{role}')) problems.push(keyProblem(m, 'filename', "must contain '{role}'"));
      if (/[/\\]/.test(name)) problems.push(keyProblem(m, 'filename', 'must be a file name, without path separators'));
      if (name.replaceAll('{role}', 'x').startsWith('.')) problems.push(keyProblem(m, 'filename', "must not start with '.'"));
      return problems;
    },
  ),

  noWildcardTools: rule(
    'no-wildcard-tools',
    'tool_map never maps to a wildcard (`*`, `Bash(*)`), which grants tools no capability declared',
    (m: ManifestInput): Problem[] =>
      mappedTools(m)
        .filter(([, tool]) => isWildcard(tool))
        .map(([cap, tool]) =>
          keyProblem(m, 'tool_map', `'${cap}' maps to the wildcard '${tool}', which grants tools no capability declared`),
        ),
  ),

  plainToolNames: rule(
    'plain-tool-names',
    'a tool is a plain name with at most one parenthesised rule, nothing a runner would split or comment out',
    (m: ManifestInput): Problem[] =>
      mappedTools(m)
        .filter(([, tool]) => !isWildcard(tool) && !TOOL_NAME.test(tool))
        .map(([cap, tool]) => keyProblem(m, 'tool_map', `'${cap}' maps to '${tool}', which is not a plain tool name`)),
  ),

  permissionNamesArePlain: rule(
    'permission-names-are-plain',
    'a permission-map adapter maps to plain permission names: a `(...)` rule would be a key of its own',
    (m: ManifestInput): Problem[] =>
      m.json.tools_style !== 'permission-map'
        ? []
        : mappedTools(m)
            .filter(([, tool]) => tool.includes('(') && !isWildcard(tool) && TOOL_NAME.test(tool))
            .map(([cap, tool]) => keyProblem(m, 'tool_map', `'${cap}' maps to '${tool}': permission-map tools are plain permission names`)),
  ),

  extraFrontmatterAllowListed: rule(
    'extra-frontmatter-allow-listed',
    "extra_frontmatter sets only keys its manifest's extra_frontmatter_keys lists: keys its runner reads without granting, disabling or redirecting anything",
    (m: ManifestInput): Problem[] => {
      const allowed = allowedKeys(m);
      const problems = extraKeys(m)
        .filter((key) => !allowed.includes(key))
        .map((key) =>
          keyProblem(
            m,
            'extra_frontmatter',
            `may not set '${key}': only keys in 'extra_frontmatter_keys' (${allowed.join(', ') || 'none'}), which the runner is known to read without granting, disabling or redirecting anything`,
          ),
        );
      for (const key of allowed.filter((k) => RENDERED_KEYS.includes(norm(k))))
        problems.push(keyProblem(m, 'extra_frontmatter_keys', `lists '${key}', which the renderer writes from the role: remove it`));
      return problems;
    },
  ),

  extraFrontmatterKeepsRenderedKeys: rule(
    'extra-frontmatter-keeps-rendered-keys',
    'extra_frontmatter never sets a key the renderer writes from the role (name, description, model, tools, permission, sandbox_mode, web_search, developer_instructions)',
    (m: ManifestInput): Problem[] =>
      extraKeys(m)
        .filter((key) => RENDERED_KEYS.includes(norm(key)))
        .map((key) => keyProblem(m, 'extra_frontmatter', `may not set '${key}': the renderer writes it from the role spec`)),
  ),

  noControlCharacters: rule(
    'no-control-characters',
    'no value that lands in YAML frontmatter or TOML holds a control character, line separator or lone surrogate (a runner would read a line break, or drop the file)',
    (values: WrittenValue[]): Problem[] =>
      values
        .filter((v) => CONTROL.test(v.value))
        .map((v) => ({
          ...valueAt(v),
          message: `${v.what} holds a control character, line separator or lone surrogate (${JSON.stringify(v.value)}): remove it`,
        })),
  ),

  noFenceInValues: rule(
    'no-fence-in-values',
    "no value that lands in an agent file holds '---': Claude Code ends its frontmatter at the first '---' anywhere, so the tool list after it would be dropped (every tool)",
    (values: WrittenValue[]): Problem[] =>
      values
        .filter((v) => v.value.includes('---'))
        .map((v) => ({
          ...valueAt(v),
          message: `${v.what} holds '---' (${JSON.stringify(v.value)}), which ends Claude Code's frontmatter early and drops the tool list after it: remove it`,
        })),
  ),

  commandPatternsStartWithCommand: rule(
    'command-patterns-start-with-command',
    "shell_commands and permission_denies belong to permission-map adapters, and every allowed pattern starts with '{command}' (nothing may run before a listed command)",
    (m: ManifestInput): Problem[] => {
      const problems: Problem[] = [];
      for (const key of ['shell_commands', 'permission_denies']) {
        if (m.json[key] !== undefined && m.json.tools_style !== 'permission-map')
          problems.push(keyProblem(m, key, "is only for 'permission-map' adapters, whose agent files hold patterns"));
      }
      const shell = m.json.shell_commands as { allow?: unknown; deny?: unknown } | undefined;
      if (shell && (!Array.isArray(shell.deny) || shell.deny.length === 0))
        problems.push(
          keyProblem(m, 'shell_commands', "needs 'deny' patterns (redirects, pipes, chains): a listed prefix could write through them"),
        );
      for (const pattern of Array.isArray(shell?.allow) ? shell.allow : []) {
        if (typeof pattern !== 'string') continue;
        if (!pattern.startsWith('{command}') || pattern.split('{command}').length !== 2)
          problems.push(keyProblem(m, 'shell_commands', `allows '${pattern}', which must start with '{command}' and name it once`));
      }
      return problems;
    },
  ),

  grantsApproveOneTool: rule(
    'grants-approve-one-tool',
    'headless grants are approval pairs (--allow... <tool>): no settings, mode or config flag, no wildcard, and a command grant is one pair per command; config_dir_env names a *_DIR variable',
    (m: ManifestInput): Problem[] => {
      const headless = m.json.headless as { grants?: unknown; command_grant?: unknown; config_dir_env?: unknown } | undefined;
      const problems: Problem[] = [];
      const grants = headless?.grants;
      if (typeof grants === 'object' && grants !== null && !Array.isArray(grants))
        for (const [cap, fragment] of Object.entries(grants)) {
          const why = grantFlaw(fragment, false);
          if (why) problems.push(keyProblem(m, 'grants', `'${cap}' ${why}`));
        }
      if (headless?.command_grant !== undefined) {
        const why = grantFlaw(headless.command_grant, true);
        if (why) problems.push(keyProblem(m, 'command_grant', why));
      }
      const env = headless?.config_dir_env;
      if (typeof env === 'string' && !/^[A-Z][A-Z0-9_]*_DIR$/.test(env))
        problems.push(
          keyProblem(m, 'config_dir_env', `is '${env}': it must name the runner's own *_DIR variable, never PATH, HOME or the like`),
        );
      return problems;
    },
  ),

  sessionOnlyOnResume: rule(
    'session-only-on-resume',
    "headless 'args' never pass '{session}': continuing a session without naming the agent again runs the runner's default agent",
    (m: ManifestInput): Problem[] => {
      const headless = m.json.headless as { args?: unknown } | undefined;
      const args = Array.isArray(headless?.args) ? headless.args : [];
      return args.some((a) => typeof a === 'string' && a.includes('{session}'))
        ? [keyProblem(m, 'headless', "has '{session}' in 'args': it belongs in 'resume_args' only")]
        : [];
    },
  ),
};
