import { spawnSync } from 'node:child_process';
import { existsSync, lutimesSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FileState } from '../src/render/state.ts';
import { applyStates, folderSpool, writeAtomic } from '../src/render/write.ts';
import { type Folders, resolvesOutside } from '../src/shared/paths.ts';
import type { Problem } from '../src/shared/problem.ts';
import { readInput } from '../src/shared/text.ts';
import { FIXTURE_MANIFEST, FIXTURE_ROLE, fixtureCheckout, host, MAIN, snapshot, testdir } from './helpers.ts';

// Inputs and outputs that are not plain files: a FIFO must not hang the gate, and a link planted
// where a temp file will be written must not be written through.

/** `node src/main.ts <command>` in `dir`; killed after 20 s, so a run that hangs on a FIFO fails. */
const gateline = (dir: string, command: string) =>
  spawnSync(process.execPath, [MAIN, command], { cwd: dir, encoding: 'utf8', timeout: 20_000, env: { ...process.env, NO_COLOR: '1' } });

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
    const run = gateline(dir, 'validate');
    expect(run.signal, 'validate hung on the FIFO').toBeNull();
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/\.gateline\/overlays\/_all\.md: is not a regular file \(a FIFO/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(rest()).toEqual(before);
  });

  it('a path that does not end in a plain name is resolved whole, not looked up in a listing', () => {
    const dir = testdir();
    const outside = testdir();
    symlinkSync(outside, join(dir, 'linked'));
    mkdirSync(join(dir, 'inside'));
    // Each path, with a fresh listing and with one that has seen the folders already.
    for (const folders of [new Map(), new Map()] as Folders[]) {
      resolvesOutside(dir, 'inside/x.md', folders);
      for (const rel of ['linked/', 'linked/.', 'inside/../linked']) expect(resolvesOutside(dir, rel, folders), rel).toBe(true);
      for (const rel of ['inside/', 'inside/.', 'linked/..']) expect(resolvesOutside(dir, rel, folders), rel).toBe(false);
    }
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
  it('a missing output folder is filled under a temp name and renamed into place whole; a failure removes it', () => {
    const root = testdir();
    const state = (path: string, next: string): FileState => ({ path, status: 'missing', next, adapter: 'test', role: 'r' });
    expect(applyStates(root, [state('out/agents/a.md', 'A\n'), state('out/agents/b.md', 'B\n')]).written).toEqual([
      'out/agents/a.md',
      'out/agents/b.md',
    ]);
    expect(readdirSync(join(root, 'out'))).toEqual(['agents']);
    expect(readdirSync(join(root, 'out/agents'))).toEqual(['a.md', 'b.md']);
    // An existing folder gets each file through its own temp file and rename.
    applyStates(root, [state('out/agents/c.md', 'C\n')]);
    expect(readdirSync(join(root, 'out/agents'))).toEqual(['a.md', 'b.md', 'c.md']);
    // The second folder cannot be made (a file is where its parent should be): the first one,
    // filled already under its temp name, is removed, and nothing appears.
    writeFileSync(join(root, 'file'), 'a file\n');
    expect(() => applyStates(root, [state('new/agents/a.md', 'A\n'), state('file/agents/b.md', 'B\n')])).toThrow(/EEXIST|ENOTDIR/);
    expect(readdirSync(root).sort()).toEqual(['file', 'new', 'out']);
    expect(readdirSync(join(root, 'new'))).toEqual([]);
  });

  it('a first render writes the new folders as it plans, out of sight; a problem in a later role leaves the tree as it was', () => {
    const roles = Array.from({ length: 30 }, (_, i) => `r${i}`);
    const files = Object.fromEntries(roles.map((r) => [`roles/${r}.md`, FIXTURE_ROLE]));
    const manifest = { ...FIXTURE_MANIFEST, output_dir: 'deep/er/out', roles };
    // The last role lacks a key: found only after 29 roles' files were written to the temp folder.
    const dir = fixtureCheckout({
      ...files,
      'roles/r29.md': FIXTURE_ROLE.replace('capability_profile: deep\n', ''),
      'adapters/test/manifest.json': JSON.stringify(manifest),
    });
    const before = snapshot(dir);
    const failed = render(dir);
    expect(failed.status).toBe(1);
    expect(failed.stderr).toMatch(/roles\/r29\.md.*capability_profile/);
    // Neither the temp folder nor the parent folders made for it are left.
    expect(snapshot(dir)).toEqual(before);
    writeFileSync(join(dir, 'roles/r29.md'), FIXTURE_ROLE);
    const ok = render(dir);
    expect(ok.status, ok.stderr).toBe(0);
    expect(readdirSync(join(dir, 'deep/er'))).toEqual(['out']);
    expect(readdirSync(join(dir, 'deep/er/out')).sort()).toEqual(roles.map((r) => `${r}.md`).sort());
    expect(readFileSync(join(dir, 'deep/er/out/r7.md'), 'utf8')).toContain('name: r7');
  });

  it('a failed first render into nested new output folders leaves no folder behind, whichever was made first', () => {
    const adapter = (name: string, output_dir: string, roles: string[]) =>
      JSON.stringify({ ...FIXTURE_MANIFEST, adapter: name, output_dir, roles });
    // a1 makes x/y (for x/y/one), b2 then x/y/q (for x/y/q/two); the missing role comes last.
    const dir = fixtureCheckout({
      'adapters/test/manifest.json': adapter('test', 'x/y/one', ['r']),
      'adapters/z2/manifest.json': adapter('z2', 'x/y/q/two', ['r', 'zbad']),
    });
    const before = snapshot(dir);
    const run = render(dir);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/roles\/zbad\.md: role spec not found/);
    expect(snapshot(dir)).toEqual(before);
  });

  it('writing a new folder fails (a name too long): a problem in the plan is still what is reported, and nothing is left', () => {
    const long = 'o'.repeat(240); // the folder can be made, its temp twin's name cannot
    const dir = fixtureCheckout({
      'adapters/test/manifest.json': JSON.stringify({ ...FIXTURE_MANIFEST, output_dir: long, roles: ['r', 'zbad'] }),
    });
    const before = snapshot(dir);
    const run = render(dir);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/roles\/zbad\.md: role spec not found/);
    expect(run.stderr).not.toMatch(/internal error|ENAMETOOLONG/);
    expect(snapshot(dir)).toEqual(before);
  });

  it('temp folders a killed render left an hour ago or more are removed by the next first render; a newer one is left', () => {
    const dir = fixtureCheckout();
    const old = join(dir, `.out.${globalThis.crypto.randomUUID()}.tmp`);
    const recent = join(dir, `.out.${globalThis.crypto.randomUUID()}.tmp`);
    for (const temp of [old, recent]) {
      mkdirSync(temp);
      writeFileSync(join(temp, 'r.md'), 'left by a killed render\n');
    }
    const twoHoursAgo = new Date(Date.now() - 2 * 3600 * 1000);
    utimesSync(old, twoHoursAgo, twoHoursAgo);
    // A link under such a name is nobody's temp folder: left, and what it points to untouched.
    const elsewhere = testdir({ 'keep.md': 'theirs\n' });
    const link = join(dir, `.out.${globalThis.crypto.randomUUID()}.tmp`);
    symlinkSync(elsewhere, link);
    lutimesSync(link, twoHoursAgo, twoHoursAgo);
    const run = render(dir);
    expect(run.status, run.stderr).toBe(0);
    expect(existsSync(old)).toBe(false);
    expect(existsSync(recent)).toBe(true);
    expect(readFileSync(join(link, 'keep.md'), 'utf8')).toBe('theirs\n');
    expect(readdirSync(join(dir, 'out'))).toEqual(['r.md']);
  });

  it('an aborted spool removes its temp folders and the parents it made, but not a parent someone else filled meanwhile', () => {
    const root = testdir();
    mkdirSync(join(root, 'kept'));
    const spool = folderSpool(root);
    spool.write('a/b/agents', 'x.md', 'X\n');
    spool.write('kept/agents', 'y.md', 'Y\n');
    expect(readdirSync(join(root, 'a/b'))[0]).toMatch(/^\.agents\..*\.tmp$/);
    writeFileSync(join(root, 'a/theirs.txt'), 'not ours\n');
    spool.abort();
    expect(readdirSync(root).sort()).toEqual(['a', 'kept']);
    expect(readdirSync(join(root, 'a'))).toEqual(['theirs.txt']);
    expect(readdirSync(join(root, 'kept'))).toEqual([]);
  });

  it('a missing output folder with another missing output folder inside it: both appear whole, whichever comes first', () => {
    const state = (path: string, next: string): FileState => ({ path, status: 'missing', next, adapter: 'test', role: 'r' });
    for (const order of [
      ['out/agents/a.md', 'out/agents/sub/b.md'],
      ['out/agents/sub/b.md', 'out/agents/a.md'],
    ]) {
      const root = testdir();
      applyStates(
        root,
        order.map((path) => state(path, `${path}\n`)),
      );
      expect(readdirSync(join(root, 'out'))).toEqual(['agents']);
      expect(readdirSync(join(root, 'out/agents')).sort()).toEqual(['a.md', 'sub']);
      expect(readdirSync(join(root, 'out/agents/sub'))).toEqual(['b.md']);
      expect(readFileSync(join(root, 'out/agents/sub/b.md'), 'utf8')).toBe('out/agents/sub/b.md\n');
    }
  });

  // The renderer resolves and lists each input folder once per run: a folder found inside must
  // not vouch for a link or a FIFO in it, and a linked folder must refuse every file.
  const render = (dir: string) => gateline(dir, 'render');
  const secret = (name: string) => {
    const file = join(testdir(), name);
    writeFileSync(file, FIXTURE_ROLE.replace('Body.', 'TOP-SECRET-BODY'));
    return file;
  };

  it('a role linked outside, between plain roles in the same folder, is refused unread; nothing is written', () => {
    const dir = fixtureCheckout({
      'roles/t.md': FIXTURE_ROLE,
      'adapters/test/manifest.json': JSON.stringify({ ...FIXTURE_MANIFEST, roles: ['r', 's', 't'] }),
    });
    symlinkSync(secret('s.md'), join(dir, 'roles/s.md'));
    const before = snapshot(dir);
    const run = render(dir);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/roles\/s\.md: is a symbolic link that leaves the repository/);
    expect(run.stderr).not.toMatch(/roles\/[rt]\.md/);
    expect(run.stderr + run.stdout).not.toContain('TOP-SECRET');
    expect(snapshot(dir)).toEqual(before);
  });

  it('a role that is a FIFO, between plain roles, is refused without being read: render ends, exit 1', () => {
    const dir = fixtureCheckout({
      'roles/t.md': FIXTURE_ROLE,
      'adapters/test/manifest.json': JSON.stringify({ ...FIXTURE_MANIFEST, roles: ['r', 's', 't'] }),
    });
    expect(spawnSync('mkfifo', [join(dir, 'roles/s.md')]).status).toBe(0);
    const run = render(dir);
    expect(run.signal, 'render hung on the FIFO').toBeNull();
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/roles\/s\.md: is not a regular file \(a FIFO/);
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });

  it('a role listed as a plain file that turns into a link or a FIFO before it is read is refused, not followed or waited on', () => {
    // readInput with `listed` is what the planner calls once the folder's listing showed a plain
    // file: the change between the listing and the read is made here by hand.
    const dir = testdir();
    const link = join(dir, 'linked.md');
    symlinkSync(secret('away.md'), link);
    const problems: Problem[] = [];
    expect(readInput(link, 'roles/linked.md', problems, { listed: true })).toBeUndefined();
    expect(problems).toEqual([{ file: 'roles/linked.md', message: expect.stringMatching(/^changed while gateline read it \(ELOOP/) }]);
    // The negative control: without `listed` the link is followed (containment is judged before).
    expect(readInput(link, 'roles/linked.md', [])).toContain('TOP-SECRET-BODY');
    // A link that loops was never listed as a plain file: it is unreadable, not "changed".
    const loop = join(dir, 'loop.md');
    symlinkSync(loop, loop);
    const looped: Problem[] = [];
    expect(readInput(loop, 'roles/loop.md', looped)).toBeUndefined();
    expect(looped).toEqual([{ file: 'roles/loop.md', message: 'cannot be read (ELOOP): replace it with the file gateline expects' }]);
    const fifo = join(dir, 'fifo.md');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    // Would block for ever without O_NONBLOCK: nobody writes to it.
    expect(readInput(fifo, 'roles/fifo.md', [], { listed: true })).toBe('');
  });

  it('a roles folder linked outside the repository refuses every role in it unread', () => {
    const dir = fixtureCheckout({
      'roles/t.md': FIXTURE_ROLE,
      'adapters/test/manifest.json': JSON.stringify({ ...FIXTURE_MANIFEST, roles: ['r', 't'] }),
    });
    const away = join(testdir(), 'roles');
    renameSync(join(dir, 'roles'), away);
    writeFileSync(join(away, 'r.md'), FIXTURE_ROLE.replace('Body.', 'TOP-SECRET-BODY'));
    symlinkSync(away, join(dir, 'roles'));
    const run = render(dir);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/roles\/r\.md: is a symbolic link that leaves the repository/);
    expect(run.stderr).toMatch(/roles\/t\.md: is a symbolic link that leaves the repository/);
    expect(run.stderr + run.stdout).not.toContain('TOP-SECRET');
  });

  it('a file where the overlays folder should be is reported, not an internal error (the containment lstat fails)', () => {
    const dir = host({}, { adapters: ['claude-code'] });
    writeFileSync(join(dir, '.gateline/overlays'), 'not a folder\n');
    const run = spawnSync(process.execPath, [MAIN, 'validate'], { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/\.gateline\/overlays\/_all\.md: overlay is missing/);
    expect(run.stderr).not.toMatch(/internal error|\n\s+at /);
  });

  it('a role linked to another file inside the repository is read as before', () => {
    const dir = fixtureCheckout({ 'specs/r.md': FIXTURE_ROLE.replace('Body.', 'Linked body.') });
    renameSync(join(dir, 'roles/r.md'), join(dir, 'roles/old.md'));
    symlinkSync(join(dir, 'specs/r.md'), join(dir, 'roles/r.md'));
    const run = render(dir);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(readFileSync(join(dir, 'out/r.md'), 'utf8')).toContain('Linked body.');
  });
});
