import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sameBytes } from '../src/render/same-bytes.ts';
import { testdir } from './helpers.ts';

// The comparison behind every fresh file of a check: bytes, not strings, and never a hang.

describe('sameBytes', () => {
  it('is true only for exactly the planned bytes', () => {
    const dir = testdir();
    const file = join(dir, 'agent.md');
    const text = '---\nname: é → 字\n---\nBody 🎉\n';
    writeFileSync(file, text);
    expect(sameBytes(file, text)).toBe(true);
    expect(sameBytes(file, text.replace('Body', 'Bodz'))).toBe(false);
    expect(sameBytes(file, `${text}\n`)).toBe(false);
    expect(sameBytes(file, text.slice(0, -1))).toBe(false);
    expect(sameBytes(join(dir, 'gone.md'), text)).toBe(false);
    writeFileSync(file, '');
    expect(sameBytes(file, '')).toBe(true);
    expect(sameBytes(file, 'x')).toBe(false);
    // After a large file the buffers grew: a small one still compares on its own bytes.
    writeFileSync(file, 'x'.repeat(100_000));
    expect(sameBytes(file, 'x'.repeat(100_000))).toBe(true);
    writeFileSync(file, 'ab');
    expect(sameBytes(file, 'ab')).toBe(true);
    expect(sameBytes(file, 'a')).toBe(false);
  });

  it('a folder or a FIFO is not the same, and the FIFO does not hang it', () => {
    const dir = testdir();
    mkdirSync(join(dir, 'folder.md'));
    expect(sameBytes(join(dir, 'folder.md'), '')).toBe(false);
    const fifo = join(dir, 'fifo.md');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    expect(sameBytes(fifo, 'content\n')).toBe(false);
  });
});
