// The runner flags gateline knows are safe, and what each may carry. A headless argv is built
// only from these: a manifest declares which of them its runner uses (headless.flags), the loader
// checks the declaration against this table (rules/argv.ts), and gateline up checks every final
// argv against the declaration before it starts a runner (src/up/guard.ts). Anything else is
// refused by its absence, whatever its spelling (`-dy`, `--approvalMode`, `-c key=value`): an
// allow-list cannot be talked round by an escape or a case variant, as a list of bad spellings can.

/**
 * What a flag's value may be:
 * - `none`: the flag takes no value.
 * - `{prompt}`, `{role}`, `{model}`, `{session}`: exactly that placeholder, filled in by gateline.
 * - `enum`: one of `values`, literally.
 * - `tool`: an approval of one tool (a grant): only in grants, checked against tool_map.
 * - `deny-settings`: a JSON object that only adds deny rules (`{"permissions":{"deny":[...]}}`),
 *   read with JSON.parse as the runner reads it, so an escape (`\u0050`) changes nothing.
 */
export type FlagKind = 'none' | '{prompt}' | '{role}' | '{model}' | '{session}' | 'enum' | 'tool' | 'deny-settings';

export interface SafeFlag {
  kind: FlagKind;
  values?: readonly string[];
}

export const SAFE_FLAGS: Readonly<Record<string, SafeFlag>> = {
  '-p': { kind: '{prompt}' },
  '--prompt': { kind: '{prompt}' },
  '--agent': { kind: '{role}' },
  '--model': { kind: '{model}' },
  '-m': { kind: '{model}' },
  '--resume': { kind: '{session}' },
  '--session': { kind: '{session}' },
  '--output-format': { kind: 'enum', values: ['json', 'stream-json', 'text'] },
  '--format': { kind: 'enum', values: ['json', 'default'] },
  '--json': { kind: 'none' },
  '--verbose': { kind: 'none' },
  // Modes that only ever ask or refuse: never acceptEdits, auto, yolo, bypassPermissions or never.
  '--permission-mode': { kind: 'enum', values: ['default', 'plan', 'dontAsk'] },
  '--approval-mode': { kind: 'enum', values: ['default', 'plan'] },
  '--sandbox': { kind: 'enum', values: ['read-only', 'workspace-write'] },
  '--ask-for-approval': { kind: 'enum', values: ['untrusted', 'on-request'] },
  '--allowedTools': { kind: 'tool' },
  '--allow-tool': { kind: 'tool' },
  '--settings': { kind: 'deny-settings' },
};

/** Words an argv may hold outside a flag: subcommands, and the prompt or session as a positional. */
export const SAFE_POSITIONALS: readonly string[] = ['exec', 'run', 'resume', '{prompt}', '{session}'];

export const PLACEHOLDER_KINDS: readonly string[] = ['{prompt}', '{role}', '{model}', '{session}'];

/** Why a `deny-settings` value is not a JSON object holding only `permissions.deny` strings, or undefined. */
export function denySettingsFlaw(value: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return 'is not inline JSON (a settings file is not read: its contents could change under the run)';
  }
  const only = (o: unknown, key: string) =>
    typeof o === 'object' && o !== null && !Array.isArray(o) && Object.keys(o).length === 1 && key in o;
  if (!only(parsed, 'permissions')) return "may hold only 'permissions'";
  const permissions = (parsed as { permissions: unknown }).permissions;
  if (!only(permissions, 'deny')) return "may hold only 'permissions.deny' (a rule that refuses; anything else can widen)";
  const deny = (permissions as { deny: unknown }).deny;
  if (!Array.isArray(deny) || !deny.every((d) => typeof d === 'string')) return "'permissions.deny' must be an array of strings";
  return undefined;
}

/** A declared tool value as a matcher: `Bash({command}:*)` matches `Bash(git diff:*)`. */
export function toolPattern(declared: string): RegExp {
  const parts = declared.split('{command}').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[^()\\n]+')}$`);
}
