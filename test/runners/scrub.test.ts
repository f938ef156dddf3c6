import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadAdapters } from '../../src/up/adapter.ts';
import { REPO } from '../helpers.ts';
import { binOf, installRunners } from './install.ts';

// Every variable a manifest's headless.scrub_env removes is one its pinned runner really reads:
// found in the installed CLI (its bundle or binary), or, for Copilot CLI whose code ships
// compressed, in its own `help environment`. A misspelt name would scrub nothing.

const ADAPTERS = ['claude-code', 'opencode', 'gemini-cli', 'codex', 'copilot'];

beforeAll(() => installRunners(), 900_000);

/** The names of `names` that occur in the runner's installed files or its help text. */
function found(adapter: string, names: string[]): string[] {
  const modules = dirname(dirname(binOf(adapter)));
  const work = mkdtempSync(join(tmpdir(), 'gateline-scrub-'));
  try {
    writeFileSync(join(work, 'names'), `${names.join('\n')}\n`);
    const grep = spawnSync('grep', ['-raohF', '-f', join(work, 'names'), modules], { encoding: 'utf8', maxBuffer: 1 << 28 });
    let text = grep.stdout;
    if (adapter === 'copilot') {
      const env = { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: work, COPILOT_HOME: join(work, '.copilot') };
      text += spawnSync(binOf(adapter), ['help', 'environment'], { encoding: 'utf8', env, timeout: 120_000 }).stdout;
    }
    return names.filter((n) => new RegExp(`\\b${n}\\b`).test(text));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

describe('headless.scrub_env names variables the pinned runners read', () => {
  for (const name of ADAPTERS) {
    it(name, () => {
      const names = loadAdapters(REPO, '', [name])[0]?.headless?.scrubEnv ?? [];
      expect(names.length).toBeGreaterThan(0);
      expect(found(name, names)).toEqual(names);
    }, 300_000);
  }
});
