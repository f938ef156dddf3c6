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

/**
 * True when the runner is handed the role's agent file: the args hold `--agent` then `{role}` as
 * two elements. Nothing looser counts: a `{role}` inside a prompt template (`(as {role}) {prompt}`)
 * names the role in text and narrows nothing, so such a lane must be treated as unnarrowed.
 */
export function takesAgentFile(args: string[]): boolean {
  return args.some((a, i) => a === '--agent' && args[i + 1] === '{role}');
}
