import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { FrameworkError } from '../shared/problem.ts';

// gateline never lets a runner skip its permission checks: a role's capabilities are its ceiling,
// and every one of these flags would lift it (auto-approving edits and commands the rendered
// agent file does not grant, or dropping the sandbox). The final argv of every run is checked,
// so a manifest, a --bind or a future code path cannot slip one in.

/** Flags that bypass permissions on their own (Claude Code, opencode, Gemini CLI, Codex, Copilot CLI). */
const BYPASS_FLAGS = [
  '--dangerously-skip-permissions',
  '--allow-dangerously-skip-permissions',
  '--dangerously-bypass-approvals-and-sandbox',
  '--yolo',
  '-y',
  '--auto',
  '--approve-for-me',
  '--allow-all-tools',
  '--allow-all-paths',
  '--allow-all',
];

const CODEX_CONFIG = /danger-full-access|bypassPermissions|approval_policy\s*=\s*"?never/i;

/** Flags whose value decides. */
const BYPASS_VALUES: Record<string, RegExp> = {
  '--permission-mode': /^bypassPermissions$/i,
  // Gemini CLI: auto_edit approves every edit unasked, and an unnarrowed role may not have edit at all.
  '--approval-mode': /^(yolo|auto_edit)$/i,
  '--sandbox': /^danger-full-access$/i,
  '-s': /^danger-full-access$/i,
  // Codex: `never` runs whatever the model asks without ever putting it to a human.
  '--ask-for-approval': /^never$/i,
  '-a': /^never$/i,
  '--config': CODEX_CONFIG,
  '-c': CODEX_CONFIG,
};

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
  /** The runner's working folder, where a relative --settings file is read from. */
  cwd?: string;
  /** Where the args come from, carried by the error. */
  at?: { file: string; line?: number };
}

interface Flag {
  flag: string;
  value: string | undefined;
  /** How the flag and its value read in the argv, for the message. */
  shown: string;
}

/**
 * Throws when `args` holds a permission-bypassing flag: as a flag of its own, as `--flag=value`,
 * as a flag followed by its value, or as a short flag with its value attached (`-sVALUE`,
 * `-s=VALUE`). A prompt never trips it: gateline's prompts start with a fixed header, so no prompt
 * argument equals a flag.
 */
export function assertNoBypass(command: string, args: string[], where: string, options: GuardOptions = {}): void {
  const cwd = options.cwd ?? process.cwd();
  const refuse = (shown: string, why = ''): never => {
    throw new PermissionBypassError(
      `${where}: refusing to run '${command}' with '${shown}': it bypasses the runner's permission checks${why}, ` +
        "and a role's capabilities are its ceiling. Remove it from the adapter's headless block.",
      options.at,
    );
  };
  for (const [i, arg] of args.entries()) {
    const { flag, value, shown } = split(arg, args[i + 1]);
    if (BYPASS_FLAGS.includes(flag)) refuse(arg);
    const valued = BYPASS_VALUES[flag];
    if (valued && value !== undefined && valued.test(value)) refuse(shown);
    if (flag === '--settings' && value !== undefined) {
      const why = settingsBypass(value, cwd);
      if (why) refuse(shown, ` (${why})`);
    }
  }
}

function split(arg: string, next: string | undefined): Flag {
  const eq = arg.indexOf('=');
  if (arg.startsWith('--') && eq > 0) return { flag: arg.slice(0, eq), value: arg.slice(eq + 1), shown: arg };
  // Short flags take their value attached as well: `-sdanger-full-access`, `-s=danger-full-access`.
  if (/^-[A-Za-z]./.test(arg)) return { flag: arg.slice(0, 2), value: arg.slice(2).replace(/^=/, ''), shown: arg };
  return { flag: arg, value: next, shown: `${arg} ${next}` };
}

/**
 * Claude Code's --settings takes JSON or a file path, and either can set
 * `permissions.defaultMode: bypassPermissions`. A path is read as the runner would read it; a
 * path that does not exist sets nothing (the runner then fails on its own).
 */
function settingsBypass(value: string, cwd: string): string | undefined {
  if (value.trim().startsWith('{')) return /bypassPermissions/i.test(value) ? 'its JSON sets bypassPermissions' : undefined;
  const path = resolve(cwd, value);
  let text: string;
  try {
    // Regular files only: reading a FIFO or a device (/dev/stdin) would block the run.
    if (!statSync(path).isFile()) return undefined;
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  return /bypassPermissions/i.test(text) ? `${value} sets bypassPermissions` : undefined;
}
