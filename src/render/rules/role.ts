import { CAPABILITIES, type Capability } from '../../shared/capabilities.ts';
import type { Problem } from '../../shared/problem.ts';
import { lineOfJsonKey } from '../../shared/text.ts';
import { takesAgentFile } from '../headless.ts';
import { type AdapterInput, type RoleInput, rule } from './rule.ts';

// The rules that hold one role to its capabilities for one adapter: floors, shared-tool leaks,
// command lists, and one path per adapter.

export const roleRules = {
  floor: rule(
    'floor',
    "a role lacking a capability the runner cannot withhold (the manifest's floor) is refused, not widened",
    (role: RoleInput, adapter: AdapterInput): Problem[] => {
      const problems: Problem[] = [];
      for (const [cap, why] of Object.entries(adapter.floor)) {
        if (role.capabilities.includes(cap as Capability)) continue;
        problems.push({
          file: adapter.file,
          message:
            `role '${role.name}' cannot be rendered for ${adapter.adapter}: it lacks '${cap}', which ${adapter.adapter} cannot withhold (${why}). ` +
            `Grant the role '${cap}' in ${role.file}, or drop '${role.name}' from this adapter's roles`,
        });
      }
      return problems;
    },
  ),

  noCapabilityLeak: rule(
    'no-capability-leak',
    'a tool the role gets is not also mapped from a capability the role lacks',
    // `tools`: what the role is rendered with, when the caller has it already.
    (role: RoleInput, adapter: AdapterInput, tools: readonly string[] = toolsFor(role, adapter)): Problem[] => {
      const problems: Problem[] = [];
      const sources = sourcesOf(adapter);
      // Indexed loops: this runs for every tool of every rendered file, mostly before V8 has
      // optimized it, where each step of a for-of is a call.
      for (let i = 0; i < tools.length; i++) {
        const tool = tools[i] as string;
        const from = sources.byName.get(tool) ?? sources.byCanonical.get(canonical(adapter, tool)) ?? [];
        if (holdsAll(role.capabilities, from)) continue;
        const leaked = from.filter((cap) => !role.capabilities.includes(cap as Capability));
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

  commandsNarrowTheShell: rule(
    'commands-narrow-the-shell',
    'a role that lists commands is rendered only where its shell can be held to them: patterns in the agent file, or per-command grants of a headless run',
    (
      role: RoleInput & { commands?: readonly string[] },
      adapter: AdapterInput & {
        toolsStyle: string;
        shellCommands?: unknown;
        headless?: { args: readonly string[]; commandGrant?: unknown };
        /** The manifest's JSON text, to point at its `roles` line. */
        text?: string;
      },
    ): Problem[] =>
      role.commands && role.capabilities.includes('shell') && !holdsCommands(adapter)
        ? [
            {
              file: adapter.file,
              ...(adapter.text === undefined ? {} : { line: lineOfJsonKey(adapter.text, 'roles') }),
              message:
                `role '${role.name}' may run only its listed commands, but ${adapter.adapter} cannot hold a shell to a list ` +
                `(a permission-map adapter needs 'shell_commands' for the agent file; any other, a 'headless.command_grant' on a headless run that is handed the agent file), so its shell would be whole. ` +
                `Drop '${role.name}' from this adapter's roles, or add one of the two`,
            },
          ]
        : [],
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
      const repeated = overlay.commands.list.filter((c, i, all) => all.indexOf(c) !== i);
      const problems: Problem[] = repeated.map((c) => ({ ...at, message: `'commands' lists '${c}' twice` }));
      return problems.concat(
        overlay.commands.list
          .filter((command) => !role.commands?.includes(command))
          .map((command) => ({
            ...at,
            message: `'${command}' is not among the commands of role '${role.name}' (${role.file}): an overlay may only narrow that list; pick from ${role.commands?.join(', ')}`,
          })),
      );
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
};

/**
 * Whether an adapter can hold a shell to a command list: patterns in a permission-map agent file,
 * or per-command grants on a headless run that is handed the agent file (whose tool list then
 * holds the shell tool the grants approve).
 */
function holdsCommands(adapter: {
  toolsStyle: string;
  shellCommands?: unknown;
  headless?: { args: readonly string[]; commandGrant?: unknown };
}): boolean {
  if (adapter.toolsStyle === 'permission-map') return Boolean(adapter.shellCommands);
  return Boolean(adapter.headless?.commandGrant) && takesAgentFile(adapter.headless?.args ?? []);
}

/** Why a command prefix is refused, or undefined when it is one plain command with arguments. */
function commandFlaw(command: string): string | undefined {
  if (command.trim() === '') return 'an empty prefix would allow every command';
  if (command.includes('---')) return "'---' would end an agent file's frontmatter early in Claude Code";
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
 * A function of the tool map and the capability list alone, so each list is worked out once per
 * tool map (the same array for every role that has it: never change it).
 */
export function toolsFor(role: RoleInput, adapter: Pick<AdapterInput, 'toolMap'>): readonly string[] {
  const key = listKey(role.capabilities);
  let known = toolLists.get(adapter.toolMap);
  if (!known) {
    known = new Map();
    toolLists.set(adapter.toolMap, known);
  }
  let tools = key === undefined ? undefined : known.get(key);
  if (!tools) {
    const list: string[] = [];
    for (const cap of role.capabilities) {
      for (const tool of adapter.toolMap[cap] ?? []) if (!list.includes(tool)) list.push(tool);
    }
    tools = Object.freeze(list);
    if (key !== undefined) known.set(key, tools);
  }
  return tools;
}

const toolLists = new WeakMap<object, Map<number, readonly string[]>>();

/**
 * A capability list, in its order, as one number (each capability a base-8 digit: its place in
 * the vocabulary, plus one); undefined for a list that is not distinct vocabulary words.
 */
function listKey(capabilities: readonly string[]): number | undefined {
  if (capabilities.length > CAPABILITIES.length) return undefined;
  let key = 0;
  for (const cap of capabilities) {
    const at = (CAPABILITIES as readonly string[]).indexOf(cap);
    if (at < 0) return undefined;
    key = key * 8 + at + 1;
  }
  return key;
}

/** Whether `held` includes every one of `caps`. */
function holdsAll(held: readonly string[], caps: readonly string[]): boolean {
  for (let i = 0; i < caps.length; i++) if (!held.includes(caps[i] as string)) return false;
  return true;
}

/** `Bash(git diff:*)` -> `Bash`: a rule narrows a tool, but it is still that tool. */
function baseName(tool: string): string {
  const paren = tool.indexOf('(');
  return paren < 0 ? tool : tool.slice(0, paren);
}

type Sources = { byName: Map<string, string[]>; byCanonical: Map<string, string[]> };
const sources = new WeakMap<object, Sources>();

/** The tool a name stands for in the runner: its base name, through the runner's aliases. */
function canonical(adapter: AdapterInput, tool: string): string {
  const base = baseName(tool);
  const aliases = adapter.toolAliases ?? {};
  return Object.hasOwn(aliases, base) ? (aliases[base] as string) : base;
}

/**
 * The capabilities that map to each tool, computed once per adapter: by the tool's canonical name,
 * and by each name the tool map writes (looked up per rendered file, without working out the
 * canonical name again).
 */
function sourcesOf(adapter: AdapterInput): Sources {
  let found = sources.get(adapter);
  if (!found) {
    const byCanonical = new Map<string, string[]>();
    for (const [cap, tools] of Object.entries(adapter.toolMap)) {
      for (const tool of tools) {
        const base = canonical(adapter, tool);
        if (!byCanonical.get(base)?.includes(cap)) byCanonical.set(base, [...(byCanonical.get(base) ?? []), cap]);
      }
    }
    const byName = new Map<string, string[]>();
    for (const tools of Object.values(adapter.toolMap))
      for (const tool of tools) byName.set(tool, byCanonical.get(canonical(adapter, tool)) ?? []);
    found = { byName, byCanonical };
    sources.set(adapter, found);
  }
  return found;
}
