// Real `git commit`s through each hook style the installer writes, with the real hook manager
// wired as a user wires it: the plain git hook, husky 9 (its `prepare` script), lefthook and the
// pre-commit framework. Each proves that the hook judges what is committed (the index): an emptied
// overlay and a partial staging are refused, the printed `git add` fixes it, the commit goes in,
// and a fresh clone of it passes `render --check`. Also `git commit -a`, which commits a temporary index.
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLEAN_ENV, git, gitRepo, install, read, testdir } from './helpers.ts';
import { HUSKY_PACKAGE, LEFTHOOK, missing, preCommitBin } from './hook-tools.ts';

const OVERLAY = '.gateline/overlays/_all.md';

interface Style {
  files: Record<string, string>;
  /** Wires the hook manager into the repository after the installer ran. */
  wire: (dir: string, env: NodeJS.ProcessEnv) => void;
  /** A folder to put on PATH (where the manager's command is). */
  path?: string;
}

const styles: Record<string, () => Style | string> = {
  git: () => ({ files: {}, wire: () => {} }),
  husky: () => ({
    files: {
      'package.json': `${JSON.stringify({ name: 'host', private: true, scripts: { prepare: 'husky' }, devDependencies: { husky: '9.1.7' } }, null, 2)}\n`,
      '.husky/pre-commit': 'echo user-hook\n',
    },
    wire: (dir, env) => {
      // What `npm install` leaves behind, without the network: the package and its bin.
      mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
      symlinkSync(HUSKY_PACKAGE, join(dir, 'node_modules', 'husky'));
      symlinkSync('../husky/bin.js', join(dir, 'node_modules', '.bin', 'husky'));
      writeFileSync(join(dir, '.gitignore'), 'node_modules/\n');
      ok(spawnSync('npm', ['run', 'prepare'], { cwd: dir, env, encoding: 'utf8' }));
      expect(git(dir, 'config', 'core.hooksPath')).toBe('.husky/_');
    },
  }),
  lefthook: () => {
    if (!spawnSync(LEFTHOOK, ['version']).stdout) return missing('lefthook', 'node test/hook-tools.ts installs it');
    return {
      files: { 'lefthook.yml': 'pre-commit:\n  commands:\n    user:\n      run: echo user-hook\n' },
      wire: (dir, env) => ok(spawnSync(LEFTHOOK, ['install'], { cwd: dir, env, encoding: 'utf8' })),
      path: dirname(LEFTHOOK),
    };
  },
  'pre-commit': () => {
    const bin = preCommitBin();
    if (!bin) return missing('the pre-commit framework', 'apt-get install pre-commit');
    return {
      files: { '.pre-commit-config.yaml': 'repos: []\n' },
      wire: (dir, env) => ok(spawnSync(bin, ['install'], { cwd: dir, env, encoding: 'utf8' })),
    };
  },
};

function ok(run: SpawnSyncReturns<string>): void {
  expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
}

describe.each(Object.keys(styles))('a real git commit through the %s hook', (name) => {
  it(`${name}: judges the index, refusing an emptied overlay and a partial staging with the git add that fixes it`, {
    timeout: 120_000,
  }, async (ctx) => {
    const style = styles[name]?.() ?? 'unknown style';
    if (typeof style === 'string') return ctx.skip(style);
    const dir = gitRepo(style.files);
    const env = {
      ...CLEAN_ENV,
      NO_COLOR: '1',
      // Node 24 first; the rest of PATH for npm, git and sh wherever this machine has them.
      PATH: [style.path, dirname(process.execPath), process.env.PATH].filter(Boolean).join(':'),
      PRE_COMMIT_HOME: testdir(),
    };
    const sh = (command: string) => spawnSync('sh', ['-c', command], { cwd: dir, env, encoding: 'utf8' });
    const commit = (...args: string[]) => {
      const run = spawnSync('git', ['commit', '-q', ...args], { cwd: dir, env, encoding: 'utf8' });
      return { code: run.status, out: `${run.stdout}${run.stderr}` };
    };
    const render = () => ok(sh('node .gateline/core/src/main.ts render'));
    /** Runs the fix the refusal printed, exactly as printed, and returns the paths it staged. */
    const followFix = (out: string) => {
      const fix = /Fix: (?:(.+?), then )?(git add -- .+)$/m.exec(out);
      expect(fix, out).not.toBeNull();
      if (fix?.[1]) ok(sh(fix[1]));
      ok(sh(fix?.[2] ?? 'false'));
      return fix?.[2];
    };
    const cloneIsFresh = () => {
      const clone = join(testdir(), 'clone');
      git(dir, 'clone', '-q', dir, clone);
      ok(spawnSync('node', ['.gateline/core/src/main.ts', 'render', '--check'], { cwd: clone, env, encoding: 'utf8' }));
    };

    const adopted = await install(dir, ['--yes']);
    expect(adopted.code, adopted.stderr).toBe(0);
    style.wire(dir, env);
    git(dir, 'add', '-A');
    const first = commit('-m', 'adopt gateline');
    expect(first.code, first.out).toBe(0);
    const stub = read(dir, OVERLAY);

    // An emptied overlay, staged: refused; restored: accepted.
    writeFileSync(join(dir, OVERLAY), '');
    git(dir, 'add', OVERLAY);
    const emptied = commit('-m', 'empty overlay');
    expect(emptied.code).not.toBe(0);
    expect(emptied.out).toMatch(/\.gateline\/overlays\/_all\.md: overlay is empty/);
    git(dir, 'checkout', 'HEAD', '--', OVERLAY);

    // Edit an overlay, render, stage only the overlay: the commit would hold stale agents.
    writeFileSync(join(dir, OVERLAY), `${stub}\nRun the tests before you report done.\n`);
    render();
    git(dir, 'add', OVERLAY);
    const partial = commit('-m', 'policy');
    expect(partial.code, partial.out).not.toBe(0);
    expect(partial.out).toMatch(/\.claude\/agents\/reviewer\.md: is stale/);
    expect(partial.out).not.toMatch(/temporary index/);
    expect(followFix(partial.out)).toMatch(/^git add -- .*\.claude\/agents\/reviewer\.md/);
    const fixed = commit('-m', 'policy');
    expect(fixed.code, fixed.out).toBe(0);
    cloneIsFresh();

    // git commit -a commits a temporary index: an updated agent that is not tracked is missing from it.
    writeFileSync(join(dir, OVERLAY), `${read(dir, OVERLAY)}Never push.\n`);
    render();
    git(dir, 'rm', '-q', '--cached', '.claude/agents/reviewer.md');
    const all = commit('-a', '-m', 'more policy');
    expect(all.code, all.out).not.toBe(0);
    expect(all.out).toMatch(/\.claude\/agents\/reviewer\.md: is not rendered yet/);
    expect(all.out).toMatch(/temporary index/);
    expect(followFix(all.out)).toBe('git add -- .claude/agents/reviewer.md');
    const allFixed = commit('-a', '-m', 'more policy');
    expect(allFixed.code, allFixed.out).toBe(0);
    cloneIsFresh();
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });
});
