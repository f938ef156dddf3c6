import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Transaction } from '../src/init/transaction.ts';
import { REPO, read, snapshot, testdir } from './helpers.ts';

describe('the installer journal', () => {
  afterEach(() => vi.restoreAllMocks());

  it('a failure half-way through writing puts every file and folder back as it was', () => {
    const dir = testdir({ 'keep.txt': 'original\n', blocker: 'a file where a folder is needed\n', 'mode.sh': '#!/bin/sh\n' });
    mkdirSync(join(dir, 'existing'));
    const before = snapshot(dir);
    const tx = new Transaction(dir);
    tx.write('keep.txt', 'changed\n');
    tx.write('new/deep/file.txt', 'new\n');
    tx.write('mode.sh', '#!/bin/sh\necho hi\n', 0o755);
    tx.remove('existing/../keep.txt');
    tx.ensureDir('made/for/render');
    expect(() => tx.write('blocker/inside.txt', 'x')).toThrow(/ENOTDIR|EEXIST/);
    expect(tx.rollback()).toEqual([]);
    expect(snapshot(dir)).toEqual(before);
    expect(read(dir, 'keep.txt')).toBe('original\n');
  });

  it('an aborted signal stops the next change before it is made', () => {
    const dir = testdir();
    const controller = new AbortController();
    const tx = new Transaction(dir, controller.signal);
    tx.write('a.txt', 'a');
    controller.abort();
    expect(() => tx.write('b.txt', 'b')).toThrow(expect.objectContaining({ name: 'AbortError' }));
    expect(existsSync(join(dir, 'b.txt'))).toBe(false);
    tx.rollback();
    expect(snapshot(dir)).toEqual({});
  });

  it('names the files it could not restore, and restores the rest', () => {
    const dir = testdir({ 'a/file.txt': 'original\n', 'b.txt': 'original\n' });
    const tx = new Transaction(dir);
    tx.write('b.txt', 'changed\n');
    tx.write('a/file.txt', 'changed\n');
    // Something else replaces the folder with a file of its own: the journal cannot put it back.
    rmSync(join(dir, 'a'), { recursive: true });
    writeFileSync(join(dir, 'a'), 'somebody else\n');
    expect(tx.rollback()).toEqual(['a/file.txt']);
    expect(read(dir, 'b.txt')).toBe('original\n');
    expect(read(dir, 'a')).toBe('somebody else\n');
  });

  it('writes through a temp file with an unpredictable name, created exclusively: a planted link is not followed', () => {
    const dir = testdir({ 'package.json': '{"name":"host"}\n' });
    const victim = join(testdir(), 'victim.txt');
    writeFileSync(victim, 'untouched\n');
    // Force the temp name and plant a link there, as an attacker who guessed it would.
    vi.spyOn(globalThis.crypto, 'randomUUID').mockReturnValue('0-0-0-0-0');
    symlinkSync(victim, join(dir, '.package.json.0-0-0-0-0.tmp'));
    const tx = new Transaction(dir);
    expect(() => tx.write('package.json', '{"name":"host","scripts":{}}\n')).toThrow(/EEXIST/);
    expect(read(victim, '')).toBe('untouched\n');
    expect(read(dir, 'package.json')).toBe('{"name":"host"}\n');
    vi.restoreAllMocks();
    tx.write('package.json', 'new\n');
    expect(read(dir, 'package.json')).toBe('new\n');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp') && !f.includes('0-0-0-0-0'))).toEqual([]);
  });

  it('a write that fails half-way (the file size limit hit mid-write) leaves the original whole', () => {
    const original = `${JSON.stringify({ name: 'host', scripts: { test: 'vitest' } }, null, 2)}\n`;
    const dir = testdir({ 'package.json': original });
    const script = join(testdir(), 'write.ts');
    writeFileSync(
      script,
      `import { Transaction } from ${JSON.stringify(pathToFileURL(join(REPO, 'src/init/transaction.ts')).href)};\n` +
        `new Transaction(${JSON.stringify(dir)}).write('package.json', 'x'.repeat(400_000));\n`,
    );
    // A real failure between the first byte and the rename, no mock: the kernel refuses writes
    // past a few kilobytes (RLIMIT_FSIZE). A truncate-then-write would leave a cut package.json.
    const run = spawnSync('sh', ['-c', 'ulimit -f 8 && exec "$0" "$@"', process.execPath, script], { encoding: 'utf8' });
    expect(run.stderr).toMatch(/EFBIG/);
    expect(read(dir, 'package.json')).toBe(original);
    expect(readdirSync(dir)).toEqual(['package.json']);
  });

  it('a rewritten file keeps its mode unless the plan sets one; rollback restores it', () => {
    const dir = testdir({ 'hook.sh': '#!/bin/sh\n', 'secret.json': '{}\n' });
    chmodSync(join(dir, 'hook.sh'), 0o755);
    chmodSync(join(dir, 'secret.json'), 0o600);
    const tx = new Transaction(dir);
    tx.write('hook.sh', '#!/bin/sh\necho hi\n');
    tx.write('secret.json', '{"a":1}\n');
    tx.write('set.sh', '#!/bin/sh\n', 0o755);
    const mode = (path: string) => statSync(join(dir, path)).mode & 0o777;
    expect([mode('hook.sh'), mode('secret.json'), mode('set.sh')]).toEqual([0o755, 0o600, 0o755]);
    tx.write('secret.json', '{"a":2}\n', 0o644);
    expect(mode('secret.json')).toBe(0o644);
    expect(tx.rollback()).toEqual([]);
    expect([mode('hook.sh'), mode('secret.json'), existsSync(join(dir, 'set.sh'))]).toEqual([0o755, 0o600, false]);
  });
});
