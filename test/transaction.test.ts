import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Transaction } from '../src/init/transaction.ts';
import { read, snapshot, testdir } from './helpers.ts';

describe('the installer journal', () => {
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
});
