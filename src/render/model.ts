import type { Manifest } from './manifest.ts';

/**
 * A role's model for an adapter: `model_overrides[role]`, else `model_map[capability_profile]`.
 * Own properties only, so a role or profile named like an Object method (`constructor`,
 * `toString`) is a missing model, not a function.
 */
export function modelFor(manifest: Pick<Manifest, 'modelOverrides' | 'modelMap'>, role: string, profile: string): string | undefined {
  if (Object.hasOwn(manifest.modelOverrides, role)) return manifest.modelOverrides[role];
  return Object.hasOwn(manifest.modelMap, profile) ? manifest.modelMap[profile] : undefined;
}
