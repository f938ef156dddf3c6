// Installs the runner CLIs pinned by the adapter manifests (each `runner.package` at its
// `runner.proven` version, binary `headless.command`) from npm into a cache folder outside the
// repository, once: `node test/runners/install.ts`. The conformance suite reads them there.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { listAdapters, loadManifest } from '../../src/render/manifest.ts';
import { formatProblem, type Problem } from '../../src/shared/problem.ts';

export const CACHE =
  process.env.GATELINE_RUNNERS_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'gateline-runners');

const ADAPTERS = join(import.meta.dirname, '..', '..', 'adapters');

interface Pinned {
  package: string;
  proven: string;
  bin: string;
}

/** The adapter's runner as its manifest pins it; throws when the manifest does not load or pins none. */
function pinned(adapter: string): Pinned {
  const problems: Problem[] = [];
  const manifest = loadManifest(ADAPTERS, 'adapters', adapter, problems);
  if (!manifest) throw new Error(problems.map(formatProblem).join('\n') || `no adapter ${adapter}`);
  if (!manifest.runner || !manifest.headless) throw new Error(`${manifest.file}: pins no runner (needs 'runner' and 'headless')`);
  return { package: manifest.runner.package, proven: manifest.runner.proven, bin: manifest.headless.command };
}

export function prefixOf(adapter: string): string {
  const facts = pinned(adapter);
  return join(CACHE, `${facts.package}@${facts.proven}`);
}

export function binOf(adapter: string): string {
  return join(prefixOf(adapter), 'node_modules', '.bin', pinned(adapter).bin);
}

export function installRunners(): void {
  for (const adapter of listAdapters(ADAPTERS)) {
    if (existsSync(binOf(adapter))) continue;
    const facts = pinned(adapter);
    const prefix = prefixOf(adapter);
    mkdirSync(prefix, { recursive: true });
    const started = Date.now();
    // npm runs on the pinned Node 24 so each package's engines and install scripts see it.
    const run = spawnSync(
      'npm',
      ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', '--no-package-lock', `${facts.package}@${facts.proven}`],
      {
        stdio: ['ignore', 'inherit', 'inherit'],
        env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` },
      },
    );
    if (run.status !== 0 || !existsSync(binOf(adapter))) throw new Error(`installing ${facts.package}@${facts.proven} failed`);
    console.log(`installed ${facts.package}@${facts.proven} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
}

if (import.meta.main) installRunners();
