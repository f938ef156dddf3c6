import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { writeAtomic } from '../src/render/write.ts';
import { host, MAIN, snapshot, testdir } from './helpers.ts';

// Inputs and outputs that are not plain files: a FIFO must not hang the gate, and a link planted
// where a temp file will be written must not be written through.

describe('containment of reads and writes', () => {
  afterEach(() => vi.restoreAllMocks());

  it('an overlay that is a FIFO is refused without being read: validate ends, exit 1, naming it', () => {
    const dir = host({}, { adapters: ['claude-code'] });
    mkdirSync(join(dir, '.gateline/overlays'), { recursive: true });
    const fifo = join(dir, '.gateline/overlays/_all.md');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    // snapshot() would block reading the FIFO itself: compare the rest of the tree.
    const rest = () => snapshot(dir, ['.gateline/overlays/_all.md']);
    const before = rest();
    const run = spawnSync(process.execPath, [MAIN, 'validate'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 20_000,
      env: { ...process.env, NO_COLOR: '1' },
    });
    expect(run.signal, 'validate hung on the FIFO').toBeNull();
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/\.gateline\/overlays\/_all\.md: is not a regular file \(a FIFO/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(rest()).toEqual(before);
  });

  it('the temp file of an atomic write has an unpredictable name and is created exclusively', () => {
    const dir = testdir();
    const victim = join(testdir(), 'victim.txt');
    writeFileSync(victim, 'untouched\n');
    // Force the temp name, plant a link there: the exclusive create must refuse it.
    vi.spyOn(globalThis.crypto, 'randomUUID').mockReturnValue('0-0-0-0-0');
    symlinkSync(victim, join(dir, '.agent.md.0-0-0-0-0.tmp'));
    expect(() => writeAtomic(join(dir, 'agent.md'), 'rendered\n')).toThrow(/EEXIST/);
    expect(readFileSync(victim, 'utf8')).toBe('untouched\n');
    vi.restoreAllMocks();
    writeAtomic(join(dir, 'agent.md'), 'rendered\n');
    writeAtomic(join(dir, 'agent.md'), 'again\n');
    expect(readFileSync(join(dir, 'agent.md'), 'utf8')).toBe('again\n');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp') && !f.includes('0-0-0-0-0'))).toEqual([]);
  });
});
