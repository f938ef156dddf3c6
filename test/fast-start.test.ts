import { execFile, spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { link } from '../src/start/link.mjs';
import { CLEAN_ENV, host, MAIN, REPO, read, testdir } from './helpers.ts';

// The fast start (src/start): the core linked into one script, with V8's code for it kept per
// user. It must change nothing a user sees, follow every edit of the core at once, refuse a cache
// folder another user could write, and step aside for anything it cannot link.

const ENTRY = join(REPO, 'src/gateline.mjs');
const execFileAsync = promisify(execFile);

interface Seen {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node <entry> ...args` in `cwd` with its own cache home. */
function run(entry: string, args: string[], cwd: string, cache: string, env: Record<string, string> = {}): Seen {
  const r = spawnSync(process.execPath, [entry, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...CLEAN_ENV, NO_COLOR: '1', XDG_CACHE_HOME: cache, ...env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The core as Node loads it, module by module: no fast start (the reference). */
const plain = (args: string[], cwd: string, entry = MAIN) => run(entry, args, cwd, cacheHome(), { NODE_DISABLE_COMPILE_CACHE: '1' });

/** A private cache home, as a user's ~/.cache is. */
function cacheHome(): string {
  const dir = join(testdir(), 'cache');
  mkdirSync(dir, { mode: 0o700 });
  return dir;
}

const startFiles = (cache: string) => {
  const dir = join(cache, 'gateline/start');
  return existsSync(dir) ? readdirSync(dir).sort() : [];
};

describe('the linked script', () => {
  const { sources } = link(join(REPO, 'src/cli.ts'));

  it('holds every module src/cli.ts reaches, and each exports what TypeScript reads it to export', () => {
    expect(sources.map((s) => relative(REPO, s.path))).toContain('src/render/plan.ts');
    expect(sources.at(-1)?.path).toBe(join(REPO, 'src/cli.ts'));
    for (const { path, bytes, exports } of sources) {
      const file = ts.createSourceFile(path, bytes.toString('utf8'), ts.ScriptTarget.ESNext, true);
      const values: string[] = [];
      for (const node of file.statements) {
        const exported = ts.getModifiers(node as ts.HasModifiers)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
        if (exported && (ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node)) && node.name) values.push(node.name.text);
        if (exported && ts.isVariableStatement(node))
          for (const d of node.declarationList.declarations) if (ts.isIdentifier(d.name)) values.push(d.name.text);
        if (ts.isExportDeclaration(node) && !node.isTypeOnly && node.exportClause && ts.isNamedExports(node.exportClause))
          for (const e of node.exportClause.elements) if (!e.isTypeOnly) values.push(e.name.text);
      }
      expect(exports.sort(), relative(REPO, path)).toEqual(values.sort());
    }
  });

  it('no string or template in the core holds a line that reads as an import or export (the linker would rewrite it)', () => {
    for (const { path, bytes } of sources) {
      const file = ts.createSourceFile(path, bytes.toString('utf8'), ts.ScriptTarget.ESNext, true);
      const visit = (node: ts.Node): void => {
        if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node))
          expect(node.text, `${relative(REPO, path)}: ${node.text.slice(0, 40)}`).not.toMatch(/(^|\n)(import|export)\b/);
        ts.forEachChild(node, visit);
      };
      visit(file);
    }
  });

  it('refuses what it cannot link: a default export, a dynamic import, a cycle, a missing name, its own name', () => {
    const dir = testdir({
      'default.ts': "import { a } from './a.ts';\nexport default a;\n",
      'dynamic.ts': "export const load = () => import('./a.ts');\n",
      'cycle.ts': "import { b } from './b.ts';\nexport const c = b;\n",
      'b.ts': "import { c } from './cycle.ts';\nexport const b = () => c;\n",
      'missing.ts': "import { nope } from './a.ts';\nexport const m = nope;\n",
      'a.ts': 'export const a: number = 1;\n',
      'shadow.ts': 'const __m = [];\nexport const s = __m;\n',
    });
    expect(() => link(join(dir, 'default.ts'))).toThrow(/cannot link 'export default a;'/);
    expect(() => link(join(dir, 'dynamic.ts'))).toThrow(/cannot link/);
    expect(() => link(join(dir, 'cycle.ts'))).toThrow(/an import cycle/);
    expect(() => link(join(dir, 'missing.ts'))).toThrow(/does not export 'nope'/);
    expect(() => link(join(dir, 'shadow.ts'))).toThrow(/cannot link '__m'/);
    expect(link(join(dir, 'a.ts')).sources.map((s) => s.exports)).toEqual([['a']]);
  });
});

describe('the fast start', () => {
  // What users and CI see must not depend on the start: the same bytes and exit code as the
  // .ts modules loaded by Node, on the first run (which links) and later ones.
  const CASES: [string, string[]][] = [
    ['render --check', ['render', '--check']],
    ['validate', ['validate']],
    ['render --check --json', ['render', '--check', '--json']],
    ['--version', ['--version']],
    ['--help', ['--help']],
    ['an unknown flag', ['render', '--nope']],
    ['an unknown command', ['paint']],
  ];

  it.each(CASES)('%s: the same output and exit code as the .ts modules loaded by Node, linking and linked', (_name, args) => {
    const cache = cacheHome();
    const reference = plain(args, REPO);
    const first = run(ENTRY, args, REPO, cache);
    const second = run(ENTRY, args, REPO, cache);
    expect(first).toEqual(reference);
    expect(second).toEqual(reference);
    expect(run(MAIN, args, REPO, cache), 'src/main.ts starts from the same script').toEqual(reference);
    expect(startFiles(cache).some((f) => f.endsWith('.js'))).toBe(true);
  });

  it('a stale host: the same report, and a render writes the same files', () => {
    const cache = cacheHome();
    const a = host({}, { adapters: ['claude-code', 'opencode'] });
    const b = host({}, { adapters: ['claude-code', 'opencode'] });
    for (const dir of [a, b]) {
      expect(run(MAIN, ['render'], dir, cacheHome()).status).toBe(0);
      rmSync(join(dir, '.opencode/agents/reviewer.md'));
      writeFileSync(join(dir, '.claude/agents/planner.md'), `${read(dir, '.claude/agents/planner.md')}\nedited by hand\n`);
    }
    for (const args of [['render', '--check'], ['validate']]) expect(run(ENTRY, args, a, cache)).toEqual(plain(args, b));
    expect(run(ENTRY, ['render'], a, cache)).toEqual(plain(['render'], b));
    expect(read(a, '.claude/agents/planner.md')).toBe(read(b, '.claude/agents/planner.md'));
  });

  it('runs the linked script once linked: no .ts module is compiled, and no warning is printed', () => {
    const cache = cacheHome();
    const first = run(ENTRY, ['render', '--check'], REPO, cache, { NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
    expect(first.status).toBe(0);
    expect(first.stderr).not.toMatch(/ExperimentalWarning|strip/i);
    const second = run(ENTRY, ['render', '--check'], REPO, cache, { NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
    expect(second.status).toBe(0);
    expect(second.stderr).not.toMatch(/src\/render\/plan\.ts/);
    // The negative control: --verbose loads the modules themselves, so stack traces name them.
    const verbose = run(ENTRY, ['render', '--check', '--verbose'], REPO, cache, { NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
    expect(verbose.stderr).toMatch(/src\/render\/plan\.ts/);
    expect(startFiles(cache)).toEqual([
      expect.stringMatching(/^[0-9a-f]{8}\.[0-9a-f]{8}\.js$/),
      expect.stringMatching(/^[0-9a-f]{8}\.[0-9a-f]{8}\.render\.v8$/),
      expect.stringMatching(/^[0-9a-f]{8}\.[0-9a-f]{8}\.src$/),
      expect.stringMatching(/^[0-9a-f]{8}\.json$/),
    ]);
  });

  it('follows an edit of the vendored core at once, also one that keeps every length', () => {
    const cache = cacheHome();
    const dir = host({}, { adapters: ['claude-code'] });
    expect(run(MAIN, ['render'], dir, cacheHome()).status).toBe(0);
    const entry = join(dir, '.gateline/core/src/gateline.mjs');
    const cli = join(dir, '.gateline/core/src/cli.ts');
    expect(run(entry, ['--help'], dir, cache).stdout).toContain('render every role');
    writeFileSync(cli, readFileSync(cli, 'utf8').replace('render every role', 'RENDER EVERY ROLE'));
    expect(run(entry, ['--help'], dir, cache).stdout).toContain('RENDER EVERY ROLE');
    // An edit deeper in the graph, in a message: every length the same, another text.
    const stale = join(dir, '.gateline/core/src/render/stale.ts');
    rmSync(join(dir, '.claude/agents/planner.md'));
    expect(run(entry, ['render', '--check'], dir, cache).stderr).toContain('missing (not rendered yet)');
    writeFileSync(stale, readFileSync(stale, 'utf8').replace('missing (not rendered yet)', 'MISSING (NOT RENDERED YET)'));
    const edited = run(entry, ['render', '--check'], dir, cache);
    expect(edited.stderr).toContain('MISSING (NOT RENDERED YET)');
    expect(edited).toEqual(plain(['render', '--check'], dir, join(dir, '.gateline/core/src/main.ts')));
    // Old builds are removed when the core is linked again: one script, one record.
    expect(startFiles(cache).filter((f) => f.endsWith('.js'))).toHaveLength(1);
  });

  it('steps aside for a core it cannot link: the .ts modules run, with the same output', () => {
    const cache = cacheHome();
    const dir = host({}, { adapters: ['claude-code'] });
    const text = join(dir, '.gateline/core/src/shared/text.ts');
    writeFileSync(text, `${readFileSync(text, 'utf8')}export default 1;\n`);
    const entry = join(dir, '.gateline/core/src/gateline.mjs');
    expect(run(entry, ['render', '--check'], dir, cache)).toEqual(
      run(join(dir, '.gateline/core/src/main.ts'), ['render', '--check'], dir, cacheHome()),
    );
    expect(startFiles(cache).filter((f) => f.endsWith('.js'))).toEqual([]);
  });

  it('refuses a cache folder another user could write, or a linked one, and writes nothing there', () => {
    const shared = join(testdir(), 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    expect(run(ENTRY, ['render', '--check'], REPO, shared).status).toBe(0);
    expect(startFiles(shared)).toEqual([]);

    const home = cacheHome();
    const elsewhere = join(testdir(), 'elsewhere');
    mkdirSync(elsewhere, { mode: 0o700 });
    symlinkSync(elsewhere, join(home, 'gateline'));
    expect(run(ENTRY, ['render', '--check'], REPO, home).status).toBe(0);
    expect(readdirSync(elsewhere)).toEqual([]);

    const off = cacheHome();
    expect(run(ENTRY, ['render', '--check'], REPO, off, { NODE_DISABLE_COMPILE_CACHE: '1' }).status).toBe(0);
    expect(startFiles(off)).toEqual([]);
  });

  it('trusts no cache home inside a git work tree: a script planted there is not run', () => {
    const reference = plain(['render', '--check'], REPO);
    // Plants a script in place of the linked one of `cache` (its record and sources untouched).
    const plant = (cache: string) => {
      expect(run(ENTRY, ['render', '--check'], REPO, cache)).toEqual(reference);
      const folder = join(cache, 'gateline/start');
      for (const f of startFiles(cache)) {
        if (f.endsWith('.v8')) rmSync(join(folder, f));
        if (f.endsWith('.js'))
          writeFileSync(join(folder, f), "(() => ({ main: () => { process.stdout.write('planted\\n'); return 0; }, done() {} }))();");
      }
    };
    // The negative control: in a folder of the user's own, outside any checkout, it would run.
    const own = cacheHome();
    plant(own);
    expect(run(ENTRY, ['render', '--check'], REPO, own).stdout).toBe('planted\n');
    // The same folder in a checkout (HOME set to a CI workspace, a home kept in git): not used.
    const checkout = testdir();
    spawnSync('git', ['init', '-q', checkout]);
    const cache = join(checkout, 'home/.cache');
    cpSync(own, cache, { recursive: true });
    expect(startFiles(cache).length).toBeGreaterThan(0);
    expect(run(ENTRY, ['render', '--check'], REPO, cache)).toEqual(reference);
    expect(run(MAIN, ['render', '--check'], REPO, cache)).toEqual(reference);
    // Nor is Node's compile cache kept there.
    expect(existsSync(join(cache, 'gateline/node'))).toBe(false);
    // A cache home outside any checkout that links into one is not used either.
    const linked = join(testdir(), 'cache');
    symlinkSync(cache, linked);
    expect(run(ENTRY, ['render', '--check'], REPO, linked)).toEqual(reference);
  });

  it('a torn or tampered cache is linked again or rejected, never run as it is', () => {
    const cache = cacheHome();
    const reference = plain(['render', '--check'], REPO);
    expect(run(ENTRY, ['render', '--check'], REPO, cache)).toEqual(reference);
    const folder = join(cache, 'gateline/start');
    const named = (end: string) => join(folder, startFiles(cache).find((f) => f.endsWith(end)) as string);
    writeFileSync(named('.v8'), 'not V8 code');
    expect(run(ENTRY, ['render', '--check'], REPO, cache)).toEqual(reference);
    writeFileSync(named('.json'), '{"torn":');
    expect(run(ENTRY, ['render', '--check'], REPO, cache)).toEqual(reference);
    // A record that points at other modules (another core's, or edited) is not this core's.
    const record = JSON.parse(readFileSync(named('.json'), 'utf8'));
    writeFileSync(named('.json'), JSON.stringify({ ...record, from: join(testdir(), 'src/cli.ts') }));
    writeFileSync(named('.js'), "'use strict'; (() => ({ main: () => { process.stdout.write('not the core\\n'); return 0; } }))();");
    expect(run(ENTRY, ['render', '--check'], REPO, cache)).toEqual(reference);
  });

  it('runs started at once on an empty cache all print the same', async () => {
    const cache = cacheHome();
    const reference = plain(['render', '--check'], REPO);
    // execFile rejects on a non-zero exit: each run must also end as the reference does (0).
    const env = { ...CLEAN_ENV, NO_COLOR: '1', XDG_CACHE_HOME: cache };
    const started = Array.from({ length: 4 }, () => execFileAsync(process.execPath, [ENTRY, 'render', '--check'], { cwd: REPO, env }));
    const runs = (await Promise.all(started)).map(({ stdout, stderr }) => ({ status: 0, stdout, stderr }));
    for (const r of runs) expect(r).toEqual(reference);
    expect(startFiles(cache).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it("sweeps a core's files once its entry is gone, and torn writes, when another core is linked", () => {
    const cache = cacheHome();
    const [a, b] = [host({}, { adapters: ['claude-code'] }), host({}, { adapters: ['claude-code'] })];
    const entry = (dir: string) => join(dir, '.gateline/core/src/gateline.mjs');
    run(entry(a), ['--help'], a, cache);
    const ofA = startFiles(cache);
    expect(ofA).toHaveLength(4);
    rmSync(a, { recursive: true, force: true });
    // A write cut short an hour ago, and one under way now.
    const folder = join(cache, 'gateline/start');
    const torn = join(folder, 'eeeeeeee.json.1.1.tmp');
    writeFileSync(torn, 'torn');
    utimesSync(torn, new Date(Date.now() - 7_200_000), new Date(Date.now() - 7_200_000));
    writeFileSync(join(folder, 'ffffffff.json.2.2.tmp'), 'writing');
    run(entry(b), ['--help'], b, cache);
    const left = startFiles(cache);
    expect(left).toHaveLength(5);
    expect(left).toContain('ffffffff.json.2.2.tmp');
    for (const f of ofA) expect(left).not.toContain(f);
    expect(run(entry(b), ['--version'], b, cache).status).toBe(0);
  });

  it('the files it keeps are private to the user', () => {
    const cache = cacheHome();
    run(ENTRY, ['render', '--check'], REPO, cache);
    const folder = join(cache, 'gateline/start');
    expect(spawnSync('stat', ['-c', '%a', folder], { encoding: 'utf8' }).stdout.trim()).toBe('700');
    for (const f of startFiles(cache))
      expect(spawnSync('stat', ['-c', '%a', join(folder, f)], { encoding: 'utf8' }).stdout.trim()).toBe('600');
  });
});
