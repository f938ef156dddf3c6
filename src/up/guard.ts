import { SAFE_FLAGS, toolPattern } from '../render/flags.ts';
import type { Headless } from '../render/headless.ts';
import { FrameworkError } from '../shared/problem.ts';

// gateline never lets a runner run wider than the role: a role's capabilities are its ceiling.
// So a runner is started only with an argv made of the flags its manifest declares (and gateline
// knows as safe, render/flags.ts), each with a declared value, and approvals only from the role's
// own grants. This is an allow-list, checked on the final argv of every run: a spelling gateline
// does not know (`-dy`, `--approvalMode`, `-c key=value`, `--settings` with an escape) is refused
// because it is not on the list, not because it was foreseen.

/** A FrameworkError at the flag's manifest; kept as a class because a step catches it to record the runner as refused. */
export class PermissionBypassError extends FrameworkError {
  override name = 'PermissionBypassError';
  /** The file holding the flag (the manifest), for --json; unset when only the final argv had it. */
  readonly at?: { file: string; line?: number };
  constructor(message: string, at?: { file: string; line?: number }) {
    super([{ ...(at ?? { file: 'gateline up' }), message }], message);
    this.at = at;
  }
}

export interface GuardOptions {
  /** The manifest's allow-list. */
  headless: Pick<Headless, 'flags' | 'positionals'>;
  /** The role's pre-approvals (grants.ts): the only approval values the argv may hold. */
  grants?: readonly string[];
  /** What the placeholders were filled with: then a placeholder's value must be exactly its filled-in template. */
  vars?: { prompt: string; role: string; model: string; session?: string };
  /** Where the args come from, carried by the error. */
  at?: { file: string; line?: number };
}

/** A template with its placeholders filled in, in one pass as argv.ts does. */
function fill(template: string, vars: NonNullable<GuardOptions['vars']>): string {
  const values: Record<string, string> = { ...vars, session: vars.session ?? '' };
  return template.replace(/\{(prompt|role|model|session)\}/g, (_, key: string) => values[key] ?? '');
}

/**
 * Throws unless every argument of `args` is a declared flag with a declared value (a placeholder's
 * value: any text not starting with '-', which a runner would read as a flag), an approval the
 * role was granted, or a declared positional. `--flag=value` is read as the flag and its value.
 */
export function assertArgvAllowed(command: string, args: readonly string[], where: string, options: GuardOptions): void {
  const { flags, positionals } = options.headless;
  const granted = new Set(options.grants ?? []);
  const refuse = (shown: string, why: string): never => {
    throw new PermissionBypassError(
      `${where}: refusing to run '${command}' with '${shown}': ${why}, and only flags gateline knows are safe for this runner ` +
        "may reach it (a role's capabilities are its ceiling). Remove it from the adapter's headless block.",
      options.at,
    );
  };
  const vars = options.vars;
  // Placeholder positionals ({prompt}, {session}) each take one word; literal ones match exactly.
  const placeholders = positionals.filter((p) => p.startsWith('{'));
  let free = placeholders.length;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (!arg.startsWith('-')) {
      if (positionals.includes(arg)) continue;
      if (free-- > 0 && (!vars || placeholders.some((p) => fill(p, vars) === arg))) continue;
      refuse(arg, 'it is not a positional the manifest declares');
    }
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const safe = Object.hasOwn(SAFE_FLAGS, flag) ? SAFE_FLAGS[flag] : undefined;
    if (!safe || !Object.hasOwn(flags, flag)) refuse(arg, 'it is not a flag the manifest declares as safe');
    const kind = safe?.kind;
    if (kind === 'none') {
      if (eq > 0) refuse(arg, 'the flag takes no value');
      continue;
    }
    const value = eq > 0 ? arg.slice(eq + 1) : args[++i];
    const shown = eq > 0 ? arg : `${arg} ${value ?? ''}`;
    if (value === undefined) refuse(shown, 'the flag has no value');
    const v = value as string;
    const declared = flags[flag] ?? [];
    if (kind?.startsWith('{')) {
      if (v.startsWith('-') || v === '') refuse(shown, 'its value would be read as a flag');
      if (vars && !declared.some((d) => fill(d, vars) === v)) refuse(shown, 'the value is not what gateline filled in');
    } else if (kind === 'tool') {
      if (!granted.has(v) || !declared.some((d) => toolPattern(d).test(v))) refuse(shown, 'it approves a tool the role was not granted');
    } else if (!declared.includes(v)) refuse(shown, 'the value is not one the manifest declares');
  }
}
