// Installs the pinned runner CLIs (src/probe/runners.ts) from npm into a cache folder outside
// the repository, once: `node test/runners/install.ts`. The conformance suite reads them there.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { RUNNERS } from '../../src/probe/runners.ts';

export const CACHE =
  process.env.GATELINE_RUNNERS_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'gateline-runners');

const BIN: Record<string, string> = {
  'claude-code': 'claude',
  codex: 'codex',
  copilot: 'copilot',
  'gemini-cli': 'gemini',
  opencode: 'opencode',
};

export function prefixOf(adapter: string): string {
  const facts = RUNNERS[adapter];
  if (!facts) throw new Error(`no pinned runner for ${adapter}`);
  return join(CACHE, `${facts.package}@${facts.proven}`);
}

export function binOf(adapter: string): string {
  return join(prefixOf(adapter), 'node_modules', '.bin', BIN[adapter] ?? adapter);
}

export function installRunners(): void {
  for (const adapter of Object.keys(RUNNERS)) {
    if (existsSync(binOf(adapter))) continue;
    const facts = RUNNERS[adapter];
    const prefix = prefixOf(adapter);
    mkdirSync(prefix, { recursive: true });
    const started = Date.now();
    // npm runs on the pinned Node 24 so each package's engines and install scripts see it.
    const run = spawnSync(
      'npm',
      ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', '--no-package-lock', `${facts?.package}@${facts?.proven}`],
      {
        stdio: ['ignore', 'inherit', 'inherit'],
        env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` },
      },
    );
    if (run.status !== 0 || !existsSync(binOf(adapter))) throw new Error(`installing ${facts?.package}@${facts?.proven} failed`);
    console.log(`installed ${facts?.package}@${facts?.proven} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
}

if (import.meta.main) installRunners();
