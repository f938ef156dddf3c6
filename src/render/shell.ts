// How an adapter's agent file narrows what a role may touch below the tool level (and which tool
// names a runner treats as one), for runners
// whose permission map takes patterns (opencode): `shell_commands` turns a role's command list
// into the shell permission's own patterns, and `permission_denies` keeps the runner's own
// protections (secret files) that a plain `read: allow` would override.

export interface ShellCommands {
  /** Patterns allowed per listed command, each starting with `{command}`. */
  allow: string[];
  /** Patterns denied after them (redirects, pipes, chaining), so a listed prefix cannot write. */
  deny: string[];
}

type Bad = (key: string, message: string) => void;

/** Reads `shell_commands` (undefined when absent). */
export function readShellCommands(value: unknown, bad: Bad): ShellCommands | undefined {
  if (value === undefined) return undefined;
  const obj = value as Record<string, unknown>;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    bad('shell_commands', 'must be an object with allow and deny pattern lists');
    return undefined;
  }
  for (const key of Object.keys(obj)) if (key !== 'allow' && key !== 'deny') bad('shell_commands', `has the unknown key '${key}'`);
  const allow = patterns(obj.allow);
  const deny = patterns(obj.deny ?? []);
  if (!allow || allow.length === 0) bad('shell_commands', "'allow' must be a non-empty array of patterns");
  if (!deny) bad('shell_commands', "'deny' must be an array of patterns");
  return allow && deny ? { allow, deny } : undefined;
}

/** Reads `permission_denies`: permission name -> patterns denied under it (empty when absent). */
export function readPermissionDenies(value: unknown, bad: Bad): Record<string, string[]> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    bad('permission_denies', 'must be an object: permission name -> patterns to deny');
    return {};
  }
  const out: Record<string, string[]> = {};
  for (const [permission, list] of Object.entries(value)) {
    const read = patterns(list);
    if (!read || read.length === 0) bad('permission_denies', `'${permission}' must map to a non-empty array of patterns`);
    else out[permission] = read;
  }
  return out;
}

/** Reads `tool_aliases`: a name the runner also accepts -> the tool it stands for (empty when absent). */
export function readToolAliases(value: unknown, bad: Bad): Record<string, string> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    bad('tool_aliases', 'must be an object: alias -> the tool it stands for');
    return {};
  }
  const entries = Object.entries(value);
  for (const [alias, tool] of entries) if (typeof tool !== 'string' || tool === '') bad('tool_aliases', `'${alias}' must name a tool`);
  return Object.fromEntries(entries.filter(([, tool]) => typeof tool === 'string'));
}

function patterns(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === 'string' && v.trim() !== '') ? value : undefined;
}
