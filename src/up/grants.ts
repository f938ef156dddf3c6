import type { Headless } from '../render/headless.ts';
import type { Capability } from '../shared/capabilities.ts';

// A headless runner asks no one, so what a role may do has to be approved up front. Only the
// role's own capabilities are looked up; a role that lists commands gets one grant per command
// (`Bash(git diff:*)`) and never the whole shell, and a runner with no command grant gets no
// shell grant for it at all: its default approval rules then refuse anything but read-only use.

/** The arguments that pre-approve the role's capabilities in this runner, each once, in capability order. */
export function grantArgs(
  headless: Pick<Headless, 'grants' | 'commandGrant'>,
  role: { capabilities: readonly Capability[]; commands?: readonly string[] },
): string[] {
  const fragments: string[][] = [];
  for (const cap of role.capabilities) {
    if (cap === 'shell' && role.commands) {
      const grant = headless.commandGrant;
      if (grant) for (const command of role.commands) fragments.push(grant.map((a) => a.replaceAll('{command}', command)));
      continue;
    }
    const grant = headless.grants[cap];
    if (grant) fragments.push(grant);
  }
  const seen = new Set<string>();
  return fragments.filter((f) => !seen.has(JSON.stringify(f)) && seen.add(JSON.stringify(f))).flat();
}
