import type { Capability } from '../shared/capabilities.ts';
import { NOT_REGULAR } from '../shared/integrity.ts';
import { checkPrefix, checkRelativePath, escapesThroughSymlink, resolvesOutside } from '../shared/paths.ts';
import type { Problem } from '../shared/problem.ts';
import { lineOfJsonKey } from '../shared/text.ts';

// Every rule that keeps a role narrow and every path inside the repository, in one place. Each
// rule is named, takes what it needs and returns Problem[] tagged with its name; the planner,
// the manifest loader, the disk comparison and validate run them. docs/narrowing.md lists them
// with the test that refuses each (test/rules.test.ts fails when a rule has no refusing case).

/** What the manifest rules read: the raw JSON object and its text, for line numbers. */
export interface ManifestInput {
  file: string;
  text: string;
  json: Record<string, unknown>;
}

/** What the role rules read of a role. */
export interface RoleInput {
  name: string;
  file: string;
  capabilities: readonly Capability[];
}

/** What the role rules read of an adapter. */
export interface AdapterInput {
  adapter: string;
  file: string;
  toolMap: Record<string, string[]>;
  floor: Record<string, string>;
}

type Check<A extends unknown[]> = (...args: A) => Problem[];
export type Rule<A extends unknown[]> = Check<A> & { ruleName: string; summary: string };

function rule<A extends unknown[]>(ruleName: string, summary: string, check: Check<A>): Rule<A> {
  const run = (...args: A) => check(...args).map((p) => ({ ...p, rule: ruleName }));
  return Object.assign(run, { ruleName, summary });
}

// Keys that grant tools or permissions, or load code or memory, in some runner. extra_frontmatter
// may never set them: they would widen a role past its capabilities. Compared without case, '-', '_'.
const GRANTING_KEYS = [
  'tools',
  'allowedtools',
  'disallowedtools',
  'permission',
  'permissions',
  'permissionmode',
  'sandboxmode',
  'approvalpolicy',
  'approvalmode',
  'defaultpermissions',
  'websearch',
  'mcpservers',
  'mcp',
  'hooks',
  'memory',
  'skills',
  'yolo',
  'bypasspermissions',
  'dangerouslyskippermissions',
  'options',
  'kind',
  'agentcardurl',
  'agentcardjson',
];
// Keys the renderer writes itself from the role spec.
const RENDERED_KEYS = ['name', 'description', 'model', 'developerinstructions'];

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

/** Every string of a manifest that the renderer writes into an agent file, with its key. */
export function manifestValues(m: ManifestInput): { file: string; line?: number; what: string; value: string }[] {
  const out: { file: string; line?: number; what: string; value: string }[] = [];
  const add = (key: string, name: string, value: unknown) => {
    if (typeof value === 'string') out.push({ file: m.file, line: lineOfJsonKey(m.text, key), what: `'${key}' '${name}'`, value });
  };
  for (const [cap, tool] of mappedTools(m)) add('tool_map', cap, tool);
  for (const key of ['model_map', 'model_overrides', 'extra_frontmatter']) {
    const obj = m.json[key];
    if (typeof obj === 'object' && obj !== null) for (const [name, value] of Object.entries(obj)) add(key, name, value);
  }
  return out;
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

function extraKeys(m: ManifestInput): string[] {
  const extra = m.json.extra_frontmatter;
  return typeof extra === 'object' && extra !== null && !Array.isArray(extra) ? Object.keys(extra) : [];
}

const norm = (key: string) => key.toLowerCase().replace(/[-_]/g, '');

export const rules = {
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

  extraFrontmatterGrantsNothing: rule(
    'extra-frontmatter-grants-nothing',
    'extra_frontmatter never sets a key that grants tools or permissions, or loads hooks, memory or servers',
    (m: ManifestInput): Problem[] =>
      extraKeys(m)
        .filter((key) => GRANTING_KEYS.includes(norm(key)))
        .map((key) =>
          keyProblem(
            m,
            'extra_frontmatter',
            `may not set '${key}': it grants tools or permissions, which come only from the role's capabilities`,
          ),
        ),
  ),

  extraFrontmatterKeepsRenderedKeys: rule(
    'extra-frontmatter-keeps-rendered-keys',
    'extra_frontmatter never sets name, description, model or developer_instructions, which come from the role',
    (m: ManifestInput): Problem[] =>
      extraKeys(m)
        .filter((key) => RENDERED_KEYS.includes(norm(key)))
        .map((key) => keyProblem(m, 'extra_frontmatter', `may not set '${key}': the renderer writes it from the role spec`)),
  ),

  noControlCharacters: rule(
    'no-control-characters',
    'no value that lands in YAML frontmatter or TOML holds a control character, line separator or lone surrogate (a runner would read a line break, or drop the file)',
    (values: { file: string; line?: number; what: string; value: string }[]): Problem[] =>
      values
        .filter((v) => CONTROL.test(v.value))
        .map((v) => ({
          file: v.file,
          ...(v.line ? { line: v.line } : {}),
          message: `${v.what} holds a control character, line separator or lone surrogate (${JSON.stringify(v.value)}): remove it`,
        })),
  ),

  outputDirNoLink: rule(
    'output-dir-no-link',
    'an output folder never leaves the repository, or enters .git, through a symbolic link',
    (root: string, adapter: { file: string; outputDir: string }): Problem[] => {
      const leak = escapesThroughSymlink(root, adapter.outputDir);
      return leak ? [{ file: adapter.file, message: `output_dir ${leak}` }] : [];
    },
  ),

  inputsStayInside: rule(
    'inputs-stay-inside',
    'role specs, manifests and overlays are read only from inside the repository: a link that leaves it is refused unread',
    (root: string, rel: string): Problem[] =>
      resolvesOutside(root, rel)
        ? [
            {
              file: rel,
              message: 'is a symbolic link that leaves the repository: gateline reads only files inside it; replace the link with the file',
            },
          ]
        : [],
  ),

  floor: rule(
    'floor',
    "a role lacking a capability the runner cannot withhold (the manifest's floor) is refused, not widened",
    (role: RoleInput, adapter: AdapterInput): Problem[] =>
      Object.entries(adapter.floor)
        .filter(([cap]) => !role.capabilities.includes(cap as Capability))
        .map(([cap, why]) => ({
          file: adapter.file,
          message:
            `role '${role.name}' cannot be rendered for ${adapter.adapter}: it lacks '${cap}', which ${adapter.adapter} cannot withhold (${why}). ` +
            `Grant the role '${cap}' in ${role.file}, or drop '${role.name}' from this adapter's roles`,
        })),
  ),

  commandsNarrowTheShell: rule(
    'commands-narrow-the-shell',
    'a role that lists commands is rendered only where its shell can be held to them: patterns in the agent file, or per-command grants of a headless run',
    (
      role: RoleInput & { commands?: readonly string[] },
      adapter: AdapterInput & { shellCommands?: unknown; headless?: { commandGrant?: unknown } },
    ): Problem[] =>
      role.commands && role.capabilities.includes('shell') && !adapter.shellCommands && !adapter.headless?.commandGrant
        ? [
            {
              file: adapter.file,
              message:
                `role '${role.name}' may run only its listed commands, but ${adapter.adapter} cannot hold a shell to a list ` +
                `(no 'shell_commands' for the agent file, no 'headless.command_grant' for a headless run), so its shell would be whole. ` +
                `Drop '${role.name}' from this adapter's roles, or add one of the two`,
            },
          ]
        : [],
  ),

  noCapabilityLeak: rule(
    'no-capability-leak',
    'a tool the role gets is not also mapped from a capability the role lacks',
    (role: RoleInput, adapter: AdapterInput): Problem[] => {
      const problems: Problem[] = [];
      for (const tool of toolsFor(role, adapter)) {
        const from = sourcesOf(adapter).get(baseName(tool)) ?? [];
        const leaked = from.filter((cap) => !role.capabilities.includes(cap as Capability));
        if (leaked.length === 0) continue;
        const held = from.filter((cap) => !leaked.includes(cap));
        const lacking = leaked.join("', '");
        problems.push({
          file: adapter.file,
          message:
            `role '${role.name}' would leak capability '${lacking}': tool '${tool}' is mapped from '${held.join("', '")}' ` +
            `(which the role has) and from '${lacking}' (which it lacks). ` +
            `Grant the role '${lacking}' in ${role.file}, or drop '${role.name}' from this adapter's roles`,
        });
      }
      return problems;
    },
  ),

  onePathOneAdapter: rule(
    'one-path-one-adapter',
    'two adapters never render the same path (each would find the other stale for ever)',
    (path: string, adapter: { adapter: string; file: string }, owners: Map<string, string>): Problem[] => {
      const other = owners.get(path);
      if (other && other !== adapter.adapter)
        return [{ file: adapter.file, message: `renders '${path}', which adapter '${other}' also renders` }];
      owners.set(path, adapter.adapter);
      return [];
    },
  ),

  regularFilesOnly: rule(
    'regular-files-only',
    'gateline writes only regular files: a symbolic link or other entry at a rendered path is refused',
    (path: string, entry: { isFile(): boolean; isSymbolicLink(): boolean }): Problem[] => {
      if (entry.isFile()) return [];
      const what = entry.isSymbolicLink()
        ? 'is a symbolic link; gateline writes only regular files'
        : 'is in the way and is not a regular file';
      return [{ file: path, message: `'${path}' ${what}: move it, then run gateline render` }];
    },
  ),

  handWrittenStays: rule(
    'hand-written-stays',
    'a file without the RENDERED header is never overwritten or deleted',
    (path: string, rendered: boolean): Problem[] =>
      rendered
        ? []
        : [
            {
              file: path,
              message:
                'was written by hand (no RENDERED header), and gateline never overwrites it: move it away or delete it, then run gateline render',
            },
          ],
  ),

  prefixIsPlain: rule(
    'prefix-is-plain',
    'the host prefix is a plain relative folder name that needs no quoting in hooks, workflows and scripts',
    (prefix: string): Problem[] => {
      const problems: Problem[] = [];
      checkPrefix(prefix, (message) => problems.push({ file: '--prefix', message }));
      return problems;
    },
  ),

  coreInRepo: rule(
    'core-in-repo',
    "the lock's core folder is inside the prefix and reached without a symbolic link that leaves the repository",
    (root: string, lockFile: string, core: string, coreDisplay: string): Problem[] => {
      const problems: Problem[] = [];
      checkRelativePath(core, (message) => problems.push({ file: lockFile, message: `'core' ${message}` }));
      const leak = problems.length ? undefined : escapesThroughSymlink(root, coreDisplay);
      if (leak) problems.push({ file: lockFile, message: `'core' ${leak}` });
      return problems;
    },
  ),

  coreMatchesLock: rule(
    'core-matches-lock',
    'the vendored core is exactly the files the lock pins, all regular files (a symbolic link is not hashed content)',
    (
      lock: { files: Record<string, string>; integrity: string },
      integrity: string,
      actual: Record<string, string>,
      at: { lockFile: string; coreDisplay: string },
    ): Problem[] => {
      const problems: Problem[] = [];
      const reinstall = 'restore it with git, or run the installer again to re-vendor the core';
      if (integrity !== lock.integrity) {
        problems.push({
          file: at.lockFile,
          message: "'integrity' does not match the lock's own file list: the lock was edited by hand; run the installer again",
        });
      }
      for (const [path, hash] of Object.entries(lock.files)) {
        const file = `${at.coreDisplay}/${path}`;
        if (!Object.hasOwn(actual, path)) problems.push({ file, message: `is missing from the vendored core: ${reinstall}` });
        else if (actual[path] === NOT_REGULAR)
          problems.push({ file, message: `is not a regular file (a link's target is not pinned by the lock): ${reinstall}` });
        else if (actual[path] !== hash)
          problems.push({ file, message: `was edited after vendoring (it no longer matches the lock): ${reinstall}` });
      }
      for (const path of Object.keys(actual)) {
        if (!Object.hasOwn(lock.files, path)) {
          problems.push({
            file: `${at.coreDisplay}/${path}`,
            message: 'is not part of the vendored core the lock pins: delete it, or run the installer again',
          });
        }
      }
      return problems;
    },
  ),

  overlaysInPlace: rule(
    'overlays-in-place',
    'every overlay a rendered role uses exists and is not empty (an emptied policy file is refused, not rendered away)',
    (overlays: { file: string; present: boolean; empty: boolean }[]): Problem[] =>
      overlays.flatMap((overlay): Problem[] => {
        if (!overlay.present)
          return [{ file: overlay.file, message: 'overlay is missing: create it (a comment-only stub splices nothing and is fine)' }];
        if (overlay.empty)
          return [{ file: overlay.file, message: 'overlay is empty: write your policy there, or restore the comment-only stub' }];
        return [];
      }),
  ),

  commandPrefixesArePlain: rule(
    'command-prefixes-are-plain',
    "a role's `commands` are plain command prefixes: words without wildcards or shell metacharacters, and the role has `shell`",
    (spec: { file: string; line: number; commands: readonly string[]; capabilities: readonly Capability[] }): Problem[] => {
      const at = { file: spec.file, line: spec.line };
      const problems: Problem[] = [];
      if (!spec.capabilities.includes('shell'))
        problems.push({
          ...at,
          message: "'commands' lists what the shell may run, but the role has no 'shell' capability: add it, or drop 'commands'",
        });
      for (const command of spec.commands) {
        const why = commandFlaw(command);
        if (why) problems.push({ ...at, message: `'commands' lists ${JSON.stringify(command)}: ${why}` });
      }
      if (new Set(spec.commands).size !== spec.commands.length) problems.push({ ...at, message: "'commands' lists a prefix twice" });
      return problems;
    },
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
      const shell = m.json.shell_commands as { allow?: unknown } | undefined;
      for (const pattern of Array.isArray(shell?.allow) ? shell.allow : []) {
        if (typeof pattern !== 'string') continue;
        if (!pattern.startsWith('{command}') || pattern.split('{command}').length !== 2)
          problems.push(keyProblem(m, 'shell_commands', `allows '${pattern}', which must start with '{command}' and name it once`));
      }
      return problems;
    },
  ),

  overlayCommandsNarrow: rule(
    'overlay-commands-narrow',
    "an overlay's commands: only narrow its role's list (a subset, in the role's own overlay), never add to it",
    (
      role: { name: string; file: string; commands?: readonly string[] },
      overlay: { file: string; commands?: { list: string[]; line: number } },
    ): Problem[] => {
      if (!overlay.commands) return [];
      const at = { file: overlay.file, line: overlay.commands.line };
      if (overlay.file.endsWith('/_all.md'))
        return [{ ...at, message: `commands narrow one role: set them in the role's own overlay, not in _all.md` }];
      if (!role.commands)
        return [{ ...at, message: `role '${role.name}' lists no commands (${role.file}), so an overlay cannot give its shell any` }];
      return overlay.commands.list
        .filter((command) => !role.commands?.includes(command))
        .map((command) => ({
          ...at,
          message: `'${command}' is not among the commands of role '${role.name}' (${role.file}): an overlay may only narrow that list; pick from ${role.commands?.join(', ')}`,
        }));
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

/** Every rule, for the table test and the docs. */
export const RULES: Rule<never[]>[] = Object.values(rules) as unknown as Rule<never[]>[];

/** Why a command prefix is refused, or undefined when it is one plain command with arguments. */
function commandFlaw(command: string): string | undefined {
  if (command.trim() === '') return 'an empty prefix would allow every command';
  if (/[*?[\]{}]/.test(command)) return 'a wildcard would allow commands nobody listed; list each prefix';
  const meta = /;|&|\||>|<|`|\$|\(|\)|\\|'|"|\n|\r|\t|#|!|~/.exec(command);
  if (meta) return `'${meta[0]}' is a shell metacharacter: a prefix is one command and its leading arguments`;
  if (!/^[A-Za-z0-9._/@=:+%-]+( [A-Za-z0-9._/@=:+%-]+)*$/.test(command))
    return 'a prefix is words of letters, digits and . _ / @ = : + % - separated by single spaces';
  return undefined;
}

/**
 * The runner tools a role receives: only those mapped from its own capabilities, in the role's
 * order, deduplicated. `no-capability-leak` refuses any of them that a lacking capability also maps.
 */
export function toolsFor(role: RoleInput, adapter: Pick<AdapterInput, 'toolMap'>): string[] {
  const tools: string[] = [];
  for (const cap of role.capabilities) {
    for (const tool of adapter.toolMap[cap] ?? []) if (!tools.includes(tool)) tools.push(tool);
  }
  return tools;
}

/** `Bash(git diff:*)` -> `Bash`: a rule narrows a tool, but it is still that tool. */
function baseName(tool: string): string {
  const paren = tool.indexOf('(');
  return paren < 0 ? tool : tool.slice(0, paren);
}

const sources = new WeakMap<object, Map<string, string[]>>();

/** tool (by base name) -> the capabilities that map to it, computed once per adapter. */
function sourcesOf(adapter: AdapterInput): Map<string, string[]> {
  let map = sources.get(adapter);
  if (!map) {
    map = new Map();
    for (const [cap, tools] of Object.entries(adapter.toolMap)) {
      for (const tool of tools) {
        const base = baseName(tool);
        if (!map.get(base)?.includes(cap)) map.set(base, [...(map.get(base) ?? []), cap]);
      }
    }
    sources.set(adapter, map);
  }
  return map;
}
