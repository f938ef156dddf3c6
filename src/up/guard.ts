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

/** Flags whose value decides: `--permission-mode bypassPermissions`, `--approval-mode yolo`, a full-access sandbox. */
const BYPASS_VALUES: Record<string, RegExp> = {
  '--permission-mode': /^bypassPermissions$/i,
  '--approval-mode': /^yolo$/i,
  '--sandbox': /^danger-full-access$/i,
  '-s': /^danger-full-access$/i,
  '--config': /danger-full-access|bypassPermissions|approval_policy\s*=\s*"?never/i,
  '-c': /danger-full-access|bypassPermissions|approval_policy\s*=\s*"?never/i,
};

export class PermissionBypassError extends Error {
  override name = 'PermissionBypassError';
}

/**
 * Throws when `args` holds a permission-bypassing flag, as a flag of its own, as `--flag=value`
 * or as a flag followed by its value. A prompt never trips it: gateline's prompts start with a
 * fixed header, so no prompt argument equals a flag.
 */
export function assertNoBypass(command: string, args: string[], where: string): void {
  for (const [i, arg] of args.entries()) {
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const value = eq > 0 ? arg.slice(eq + 1) : args[i + 1];
    const valued = BYPASS_VALUES[flag];
    const hit = BYPASS_FLAGS.includes(flag) || (valued !== undefined && value !== undefined && valued.test(value));
    if (hit) {
      throw new PermissionBypassError(
        `${where}: refusing to run '${command}' with '${eq > 0 || !valued ? arg : `${arg} ${value}`}': it bypasses the runner's permission checks, ` +
          "and a role's capabilities are its ceiling. Remove it from the adapter's headless block.",
      );
    }
  }
}
