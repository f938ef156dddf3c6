import { CAPABILITIES } from '../shared/capabilities.ts';

// A manifest's `headless` block: how `gateline up` starts the runner and reads what it prints.
// The loader checks it so every command refuses a bad one alike; the renderer never reads it.

/** How the runner's headless output is read: each runner's own JSON shape, or plain text. */
export const OUTPUT_FORMATS = ['claude-json', 'opencode-jsonl', 'gemini-json', 'codex-jsonl', 'text'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface Headless {
  /** The runner's executable: what `up` starts, the probe looks for on PATH, and the runner's npm package installs. */
  command: string;
  args: string[];
  /** How stdout is read; `text` when the manifest names no format. */
  output: OutputFormat;
  /** The JSON field holding the session id on each output line (opencode: sessionID). */
  sessionField?: string;
  /** How to continue a session: templated like `args`, with {session}. Absent: a fresh run replaces a resume. */
  resumeArgs?: string[];
  /**
   * The environment variable that adds a config folder whose `agents/` the runner reads (opencode:
   * OPENCODE_CONFIG_DIR): where `gateline up` puts the primary copy of a subagent file.
   */
  configDirEnv?: string;
  /**
   * What a headless run pre-approves for a role: per capability the role has, these arguments
   * (Claude Code `--allowedTools Write`). Only the role's own capabilities are ever looked up.
   */
  grants: Record<string, string[]>;
  /** For a role that lists commands, per command instead of the shell grant (`Bash({command}:*)`). */
  commandGrant?: string[];
  /** The allow-list: every flag the argv may hold, with the values it may take (flags.ts says which are safe). */
  flags: Record<string, string[]>;
  /** Words the argv may hold outside a flag: subcommands, `{prompt}`, `{session}`. */
  positionals: string[];
  /** A tool_map tool's name where the runner's approval flag spells it differently (Copilot CLI: execute is `shell`). */
  approvalNames: Record<string, string>;
  /** Variables removed from the runner's environment: each changes its permissions, config or agent lookup. */
  scrubEnv: string[];
}

const CAPABILITY_NAMES: readonly string[] = CAPABILITIES;

const KEYS = [
  'command',
  'args',
  'output',
  'session_field',
  'resume_args',
  'config_dir_env',
  'grants',
  'command_grant',
  'flags',
  'positionals',
  'approval_names',
  'scrub_env',
];
const PLACEHOLDERS = ['{prompt}', '{role}', '{model}', '{session}'];

/** Reads `headless` (undefined when absent); reports each flaw through `bad(key, message)`, which names the key's line. */
export function readHeadless(value: unknown, bad: (key: string, message: string) => void): Headless | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    bad('headless', 'must be an object');
    return undefined;
  }
  const h = value as Record<string, unknown>;
  let failed = false;
  const fail = (key: string, message: string) => {
    failed = true;
    bad(key, message);
  };
  for (const key of Object.keys(h)) if (!KEYS.includes(key)) fail('headless', `has the unknown key '${key}' (known: ${KEYS.join(', ')})`);
  if (typeof h.command !== 'string' || h.command.trim() === '') fail('headless', "needs 'command': the runner's executable");
  const args = strings(h.args);
  if (!args) fail('headless', "needs 'args': an array of strings");
  else if (!args.some((a) => a.includes('{prompt}')))
    fail('headless', "passes no '{prompt}' in 'args', so the role would never get its task");
  if (h.output !== undefined && !OUTPUT_FORMATS.includes(h.output as OutputFormat)) {
    fail('output', `must be one of ${OUTPUT_FORMATS.join(', ')} (how the runner's stdout is read)`);
  }
  const resume = h.resume_args === undefined ? undefined : strings(h.resume_args);
  if (h.resume_args !== undefined && !resume) fail('resume_args', 'must be an array of strings');
  if (resume && !resume.some((a) => a.includes('{session}'))) fail('resume_args', "must pass '{session}'");
  if (h.session_field !== undefined && (typeof h.session_field !== 'string' || h.session_field === '')) {
    fail('session_field', 'must be the name of a JSON field');
  }
  for (const arg of [...(args ?? []), ...(resume ?? [])]) {
    for (const found of arg.match(/\{[a-z_]+\}/g) ?? []) {
      if (!PLACEHOLDERS.includes(found)) fail('headless', `uses the unknown placeholder '${found}' (known: ${PLACEHOLDERS.join(', ')})`);
    }
  }
  if (h.config_dir_env !== undefined && (typeof h.config_dir_env !== 'string' || !/^[A-Z_][A-Z0-9_]*$/.test(h.config_dir_env))) {
    fail('config_dir_env', 'must be an environment variable name (upper case, digits, _)');
  }
  const grants: Record<string, string[]> = {};
  if (h.grants !== undefined) {
    if (typeof h.grants !== 'object' || h.grants === null || Array.isArray(h.grants))
      fail('grants', 'must be an object: capability -> arguments');
    else
      for (const [cap, value] of Object.entries(h.grants)) {
        const list = strings(value);
        if (!CAPABILITY_NAMES.includes(cap)) fail('grants', `names '${cap}', which is not a capability`);
        else if (!list || list.some((a) => /\{[a-z_]+\}/.test(a))) fail('grants', `'${cap}' must be an array of plain arguments`);
        else grants[cap] = list;
      }
  }
  const commandGrant = h.command_grant === undefined ? undefined : strings(h.command_grant);
  if (h.command_grant !== undefined && !commandGrant?.some((a) => a.includes('{command}')))
    fail('command_grant', "must be an array of arguments passing '{command}'");
  const flags: Record<string, string[]> = {};
  // Absent: an empty allow-list, so any flag in the args is refused by the argv rule.
  if (h.flags !== undefined && (typeof h.flags !== 'object' || h.flags === null || Array.isArray(h.flags)))
    fail('flags', 'must be an object: each flag the argv may hold -> the values it may take ([] for none)');
  else
    for (const [flag, values] of Object.entries(h.flags ?? {})) {
      const list = strings(values);
      if (!list) fail('flags', `'${flag}' must be an array of strings`);
      else flags[flag] = list;
    }
  const positionals = h.positionals === undefined ? [] : strings(h.positionals);
  if (!positionals) fail('positionals', 'must be an array of strings');
  const approvalNames: Record<string, string> = {};
  if (h.approval_names !== undefined) {
    if (typeof h.approval_names !== 'object' || h.approval_names === null || Array.isArray(h.approval_names))
      fail('approval_names', 'must be an object: tool -> the name its approval flag uses');
    else
      for (const [tool, name] of Object.entries(h.approval_names)) {
        if (typeof name !== 'string' || name === '') fail('approval_names', `'${tool}' must name a tool`);
        else approvalNames[tool] = name;
      }
  }
  const scrubEnv = h.scrub_env === undefined ? [] : strings(h.scrub_env);
  if (!scrubEnv || scrubEnv.some((v) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(v)))
    fail('scrub_env', 'must be an array of environment variable names');
  // '{session}' in 'args' is refused by the rule session-only-on-resume (rules.ts); what the
  // flags and positionals may be, and that the args use only them, by the argv rules.
  if (failed) return undefined;
  return {
    command: h.command as string,
    args: args as string[],
    output: (h.output as OutputFormat | undefined) ?? 'text',
    sessionField: h.session_field as string | undefined,
    resumeArgs: resume,
    configDirEnv: h.config_dir_env as string | undefined,
    grants,
    commandGrant,
    flags,
    positionals: positionals as string[],
    approvalNames,
    scrubEnv: scrubEnv as string[],
  };
}

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined;
}

/**
 * True when the runner is handed the role's agent file: the args hold `--agent` then `{role}` as
 * two elements. Nothing looser counts: a `{role}` inside a prompt template (`(as {role}) {prompt}`)
 * names the role in text and narrows nothing, so such a lane must be treated as unnarrowed.
 */
export function takesAgentFile(args: readonly string[]): boolean {
  return args.some((a, i) => a === '--agent' && args[i + 1] === '{role}');
}
