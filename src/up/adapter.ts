import { join } from 'node:path';
import type { Headless } from '../render/headless.ts';
import { loadManifest, type Manifest } from '../render/manifest.ts';
import { FrameworkError, type Problem } from '../shared/problem.ts';

// The orchestrator's view of an adapter: the core's manifest, which the one loader has checked,
// with the two blocks `up` uses (`model_vendors` and `headless`) at hand.

export type { Headless };

export interface Adapter {
  name: string;
  manifest: Manifest;
  vendors: Record<string, string>;
  headless?: Headless;
}

/** Loads the named adapters from `<coreRoot>/adapters`, in the order given. Throws FrameworkError listing every problem. */
export function loadAdapters(coreRoot: string, coreDisplay: string, names: string[]): Adapter[] {
  const problems: Problem[] = [];
  const display = [coreDisplay, 'adapters'].filter(Boolean).join('/');
  const adapters: Adapter[] = [];
  for (const name of names) {
    const manifest = loadManifest(join(coreRoot, 'adapters'), display, name, problems);
    if (!manifest) continue;
    const { vendors, headless } = manifest;
    adapters.push({ name, manifest, vendors, headless });
  }
  if (problems.length) throw new FrameworkError(problems);
  return adapters;
}

export { takesAgentFile } from '../render/headless.ts';
