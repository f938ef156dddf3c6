// `validate --staged` judges what the next commit holds (the git index), in real git repositories.
// The hook managers that run it are driven for real in hook-managers.test.ts.
import { spawnSync } from 'node:child_process';
import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitAddCommand, shellWord } from '../src/validate/git-add.ts';
import { FIXTURE_MANIFEST, FIXTURE_ROLE, fixtureCheckout, gateline, git, gitRepo, install, writeFiles } from './helpers.ts';

/** A framework checkout (the fixture role rendered to `out`) committed in a real git repository, fresh. */
function committed(manifest: Record<string, unknown> = {}): string {
  const dir = gitRepo({
    'roles/r.md': FIXTURE_ROLE,
    'adapters/test/manifest.json': JSON.stringify({ ...FIXTURE_MANIFEST, ...manifest }, null, 2),
  });
  expect(gateline(['render'], dir).code).toBe(0);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'fresh');
  return dir;
}

const EDITED_ROLE = FIXTURE_ROLE.replace('Body.', 'A new body.');

/** The `Fix:` line's command, run as printed by a POSIX shell; returns the command. */
function followFix(dir: string, stderr: string): string {
  const command = /^Fix: (.+)$/m.exec(stderr)?.[1];
  expect(command, stderr).toBeDefined();
  const run = spawnSync('sh', ['-c', command ?? 'false'], { cwd: dir, encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  return command ?? '';
}

const staged = (dir: string) => git(dir, 'diff', '--cached', '--name-only');

describe('validate --staged', () => {
  it('refuses a partial staging (spec staged, its render not) with the exact git add, and passes once it is run', () => {
    const dir = committed();
    writeFileSync(join(dir, 'roles/r.md'), EDITED_ROLE);
    expect(gateline(['render'], dir).code).toBe(0);
    git(dir, 'add', 'roles/r.md');
    expect(gateline(['validate'], dir).code).toBe(0); // the work tree is fine: the old check passed this
    const run = gateline(['validate', '--staged'], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^out\/r\.md: is stale/m);
    expect(run.stderr).toMatch(/1 problem in what is staged for commit/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(followFix(dir, run.stderr)).toBe('git add -- out/r.md');
    expect(gateline(['validate', '--staged'], dir)).toMatchObject({ code: 0 });
  });

  it('passes what is staged when only the work tree is broken, and says those changes are not checked', () => {
    const dir = committed();
    writeFileSync(join(dir, 'roles/r.md'), EDITED_ROLE); // not rendered, not staged
    expect(gateline(['validate'], dir).code).toBe(1);
    const run = gateline(['validate', '--staged'], dir);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/ok \(1 rendered file fresh; 1 file of gateline's with unstaged changes, not part of this commit\)/);
  });

  it('refuses a hand-edited render that is staged while the work tree copy was put back', () => {
    const dir = committed();
    const fresh = join(dir, 'out/r.md');
    copyFileSync(fresh, join(dir, 'kept'));
    writeFiles(dir, { 'out/r.md': `${FIXTURE_ROLE}\nWidened by hand.\n` });
    git(dir, 'add', 'out/r.md');
    copyFileSync(join(dir, 'kept'), fresh);
    expect(gateline(['validate'], dir).code).toBe(0);
    const run = gateline(['validate', '--staged'], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^out\/r\.md: /m);
    expect(followFix(dir, run.stderr)).toBe('git add -- out/r.md');
    expect(gateline(['validate', '--staged'], dir).code).toBe(0);
  });

  it('refuses an input deleted in the index only, and a render that is ignored (git add -f)', () => {
    const dir = committed();
    git(dir, 'rm', '-q', '--cached', 'roles/r.md');
    const deleted = gateline(['validate', '--staged'], dir);
    expect(deleted.code).toBe(1);
    expect(followFix(dir, deleted.stderr)).toBe('git add -- roles/r.md');
    expect(gateline(['validate', '--staged'], dir).code).toBe(0);

    writeFileSync(join(dir, '.gitignore'), 'out/\n');
    git(dir, 'rm', '-q', '--cached', 'out/r.md');
    const ignored = gateline(['validate', '--staged'], dir);
    expect(ignored.code).toBe(1);
    expect(ignored.stderr).toMatch(/^out\/r\.md: is not rendered yet/m);
    expect(followFix(dir, ignored.stderr)).toBe('git add -f -- out/r.md');
    expect(staged(dir)).toBe('');
    expect(gateline(['validate', '--staged'], dir).code).toBe(0);
  });

  it('judges the index named by GIT_INDEX_FILE (relative, as git may give a hook), not the default one', () => {
    const dir = committed();
    copyFileSync(join(dir, '.git/index'), join(dir, '.git/other-index'));
    writeFileSync(join(dir, 'roles/r.md'), EDITED_ROLE);
    const other = { GIT_INDEX_FILE: '.git/other-index' };
    expect(spawnSync('git', ['add', 'roles/r.md'], { cwd: dir, env: { ...process.env, ...other } }).status).toBe(0);
    git(dir, 'checkout', '--', 'roles/r.md');
    expect(gateline(['validate', '--staged'], dir).code).toBe(0);
    const run = gateline(['validate', '--staged'], dir, other);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^out\/r\.md: is stale/m);
    expect(run.stderr).toMatch(/temporary index/);
  });

  it('refuses a lock that is not in the commit, in a host', async () => {
    const dir = gitRepo();
    expect((await install(dir, ['--yes', '--hook', 'none'])).code).toBe(0);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'adopt');
    git(dir, 'rm', '-q', '--cached', '.gateline/framework-lock.json');
    const run = gateline(['validate', '--staged'], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^\.gateline\/framework-lock\.json: is not in the commit/m);
    expect(run.stderr).not.toMatch(/gateline-staged-/); // no temp folder leaks into messages
    expect(followFix(dir, run.stderr)).toBe('git add -- .gateline/framework-lock.json');
    expect(gateline(['validate', '--staged'], dir).code).toBe(0);
  });

  it('names a folder with a leading dash, spaces and wildcard characters so that only it is staged', () => {
    const dir = committed({ output_dir: '-my out[1]' });
    writeFileSync(join(dir, 'roles/r.md'), EDITED_ROLE);
    expect(gateline(['render'], dir).code).toBe(0);
    git(dir, 'add', 'roles/r.md');
    writeFiles(dir, { '-my out1/r.md': 'a decoy the wildcard [1] would match\n' });
    const run = gateline(['validate', '--staged'], dir);
    expect(run.code).toBe(1);
    expect(followFix(dir, run.stderr)).toBe("git --literal-pathspecs add -- '-my out[1]/r.md'");
    expect(staged(dir).split('\n').sort()).toEqual(['-my out[1]/r.md', 'roles/r.md']);
  });

  it('says to fix the work tree first when it has problems a render does not fix', () => {
    const dir = committed();
    writeFileSync(join(dir, 'roles/r.md'), EDITED_ROLE);
    git(dir, 'add', 'roles/r.md'); // staged without its render
    writeFileSync(join(dir, 'roles/r.md'), EDITED_ROLE.replace('[read]', '[read, teleport]'));
    const run = gateline(['validate', '--staged'], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^out\/r\.md: is stale/m);
    expect(run.stderr).toMatch(
      /^Fix the work tree first \(validate without --staged lists its problems\), then stage gateline's files: git add -- roles\/r\.md$/m,
    );
  });

  it("refuses a file name that is not UTF-8 among gateline's files, without a stack", () => {
    const dir = committed();
    writeFileSync(Buffer.concat([Buffer.from(join(dir, 'roles/')), Buffer.from([0x66, 0xff, 0x2e, 0x6d, 0x64])]), 'x\n');
    const run = gateline(['validate', '--staged'], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/git lists a file whose name is not UTF-8 among gateline's files: rename it/);
    expect(run.stderr).not.toMatch(/\n\s+at |internal error/);
  });

  it('names paths from where it runs when the checkout is a subfolder of the repository', () => {
    const dir = gitRepo({ 'sub/roles/r.md': FIXTURE_ROLE, 'sub/adapters/test/manifest.json': JSON.stringify(FIXTURE_MANIFEST) });
    const sub = join(dir, 'sub');
    expect(gateline(['render'], sub).code).toBe(0);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'fresh');
    writeFileSync(join(sub, 'roles/r.md'), EDITED_ROLE);
    expect(gateline(['render'], sub).code).toBe(0);
    git(dir, 'add', 'sub/roles/r.md');
    const fromTop = gateline(['validate', '--staged', '--root', 'sub'], dir);
    expect(fromTop.stderr).toMatch(/^out\/r\.md: is stale/m);
    expect(fromTop.stderr).toMatch(/^Fix: git add -- sub\/out\/r\.md$/m);
    const inSub = gateline(['validate', '--staged'], sub);
    expect(followFix(sub, inSub.stderr)).toBe('git add -- out/r.md');
    expect(gateline(['validate', '--staged', '--root', 'sub'], dir).code).toBe(0);
  });

  it('gives a --json result with the fix', () => {
    const dir = committed();
    writeFileSync(join(dir, 'roles/r.md'), EDITED_ROLE);
    expect(gateline(['render'], dir).code).toBe(0);
    git(dir, 'add', 'roles/r.md');
    const run = gateline(['validate', '--staged', '--json'], dir);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      ok: false,
      staged: true,
      unstaged: ['out/r.md'],
      fix: { render: false, workTreeOk: true, paths: ['out/r.md'], command: 'git add -- out/r.md', temporaryIndex: false },
    });
  });

  it('says clearly, without a stack, that it needs a git repository', () => {
    const dir = fixtureCheckout(); // a .git folder that is no repository: git finds none
    rmSync(join(dir, '.git'), { recursive: true });
    const run = gateline(['validate', '--staged'], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/--staged judges what the next commit holds \(the git index\), but this is not inside a git work tree/);
    expect(run.stderr).not.toMatch(/\n\s+at |internal error/);
  });

  it('belongs to validate', () => {
    const run = gateline(['render', '--staged'], fixtureCheckout());
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--staged belongs to validate/);
  });
});

describe('the git add hint', () => {
  // Names an attacker (or an accident) may give files: each must be staged exactly, with no other
  // file and nothing printed that a terminal would act on.
  const hostile = [
    '-rf',
    '--force',
    'two words.md',
    "it's.md",
    'back\\slash.md',
    '$(touch pwned).md',
    '`touch pwned`.md',
    '*.md',
    ':(glob)x.md',
    'line\nbreak.md',
    'esc\u001b[31mred.md',
    'tab\t.md',
    'bidi\u202egnp.md',
    'émoji 🙂.md',
  ];

  it('stages exactly the named files, whatever their names hold', () => {
    const dir = gitRepo({ 'decoy.md': 'x\n', 'xx.md': 'x\n', 'pwned.txt': '' });
    rmSync(join(dir, 'pwned.txt'));
    for (const name of hostile) writeFileSync(join(dir, name), `${name}\n`);
    const command = gitAddCommand(hostile);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: what must not be printed raw.
    expect(command).not.toMatch(/[\u0000-\u001f\u007f\u202e]/);
    const run = spawnSync('bash', ['-c', command], { cwd: dir, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const names = git(dir, 'diff', '--cached', '--name-only', '-z').split('\0').filter(Boolean).sort();
    expect(names).toEqual([...hostile].sort());
    expect(spawnSync('test', ['-e', join(dir, 'pwned')]).status).toBe(1);
  });

  it("quotes only what needs it, in POSIX form unless a control character needs $'...'", () => {
    expect(shellWord('.claude/agents/r.md')).toBe('.claude/agents/r.md');
    expect(shellWord("it's here")).toBe("'it'\\''s here'");
    expect(shellWord('a\nb')).toBe("$'a\\nb'");
    expect(gitAddCommand(['a'], { force: true })).toBe('git add -f -- a');
  });

  it('is a plain git add when a name has no wildcard', () => {
    expect(gitAddCommand(['-a b/c.md'])).toBe("git add -- '-a b/c.md'");
  });
});
