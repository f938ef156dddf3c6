import type { Headless } from '../render/headless.ts';

// A runner's environment is the user's, minus the variables its manifest names in
// headless.scrub_env: each one changes the runner's permissions, config or agent lookup (an
// approve-all switch, an extra config or agents folder, a settings path), so one left in the
// user's shell would widen every role on that runner. gateline's own additions (the primary
// copy's config folder) are set after the scrub.

/** The child's environment: `base` without the scrubbed names, then `extra`. */
export function runnerEnv(
  base: NodeJS.ProcessEnv,
  headless: Pick<Headless, 'scrubEnv'> | undefined,
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  const drop = new Set(headless?.scrubEnv ?? []);
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) if (!drop.has(name)) env[name] = value;
  return { ...env, ...extra };
}
