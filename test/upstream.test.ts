import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTarball } from '../src/init/tarball.ts';
import { runCheckUpstream } from '../src/init/upstream-cli.ts';
import { hashTree } from '../src/shared/integrity.ts';
import { buildLock, type Lock, stringifyLock } from '../src/shared/lock.ts';
import { copyTree, gitRepo, host, install, MAIN, REPO, read, testdir } from './helpers.ts';

// `gateline check-upstream` against this repository as npm packs it: the lock catches drift,
// this catches a vendored core that is not the published package even when the lock was
// re-hashed to match.

const npmEnv = { ...process.env, npm_config_update_notifier: 'false', npm_config_audit: 'false', npm_config_fund: 'false' };
let tarball = '';
let integrity = '';

beforeAll(() => {
  const out = testdir();
  // --ignore-scripts: no build, so nothing is written into the checkout; the core files need none.
  const pack = spawnSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', out], {
    cwd: REPO,
    env: { ...npmEnv, npm_config_offline: 'true' },
    encoding: 'utf8',
  });
  expect(pack.status, pack.stderr).toBe(0);
  const [info] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as { filename: string; integrity: string }[];
  tarball = join(out, info?.filename ?? '');
  integrity = info?.integrity ?? '';
}, 120_000);

async function check(dir: string, args: string[], env: NodeJS.ProcessEnv = npmEnv, signal?: AbortSignal) {
  let stdout = '';
  let stderr = '';
  const sink = (add: (s: string) => void) =>
    new Writable({
      write(chunk, _e, done) {
        add(String(chunk));
        done();
      },
    });
  const code = await runCheckUpstream(args, {
    stdout: sink((s) => {
      stdout += s;
    }),
    stderr: sink((s) => {
      stderr += s;
    }),
    cwd: dir,
    env,
    signal,
  });
  return { code, stdout, stderr };
}

/** Rewrites the lock to match the core as it is now, as a committer hiding an edit would. */
function rehash(dir: string, change: Partial<Lock> = {}): void {
  const lockPath = join(dir, '.gateline/framework-lock.json');
  const old = JSON.parse(readFileSync(lockPath, 'utf8')) as Lock;
  const lock = buildLock(hashTree(join(dir, '.gateline/core')), {
    version: old.version,
    source: old.source,
    core: old.core,
    adapters: old.adapters,
    ...change,
  });
  writeFileSync(lockPath, stringifyLock(lock));
}

const validate = (dir: string) => spawnSync(process.execPath, [MAIN, 'validate', '--root', dir], { encoding: 'utf8' });
const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at |TypeError|ReferenceError/);

describe('gateline check-upstream --tarball', () => {
  it('a vendored core that is the packed package passes, and says the lock records no tarball integrity', async () => {
    const dir = host({}, { adapters: ['claude-code'] });
    const run = await check(dir, ['--tarball', tarball]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^\.gateline\/core matches create-gateline@0\.1\.0 in .*\.tgz: \d+ files\. The lock records no tarball integrity/,
    );
  });

  it('an edited vendored file re-hashed into the lock passes validate and is caught here, with what to do', async () => {
    const dir = gitRepo();
    expect((await install(dir, ['--yes', '--hook', 'none', '--adapter', 'claude-code'])).code).toBe(0);
    expect(validate(dir).status).toBe(0);
    // A committer quietly changes the vendored validator, then re-hashes the lock to match.
    const validator = join(dir, '.gateline/core/src/validate/validate.ts');
    writeFileSync(validator, `${read(validator, '')}// harmless, surely\n`);
    rehash(dir);
    expect(validate(dir).status).toBe(0); // the lock alone cannot tell
    const run = await check(dir, ['--tarball', tarball]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^\.gateline\/core\/src\/validate\/validate\.ts: differs from create-gateline@0\.1\.0$/m);
    expect(run.stderr).toMatch(/\.gateline\/framework-lock\.json: \.gateline\/core is not the published create-gateline@0\.1\.0/);
    expect(run.stderr).toMatch(/npm create gateline@0\.1\.0 -- --yes .*git log -p -- \.gateline\/core \.gateline\/framework-lock\.json/);
    // What it says to do works: the installer of that version puts the published core back.
    expect((await install(dir, ['--yes', '--hook', 'none'])).code).toBe(0);
    expect((await check(dir, ['--tarball', tarball])).code).toBe(0);
    expect(run.stderr.match(/^\.gateline\/core\//gm)).toHaveLength(1);
    noStack(run.stderr);
  });

  it('an extra file and a missing file are each named', async () => {
    const dir = host({}, { adapters: ['claude-code'] });
    writeFileSync(join(dir, '.gateline/core/src/render/extra.ts'), 'export {};\n');
    rmSync(join(dir, '.gateline/core/roles/verifier.md'));
    rehash(dir);
    const run = await check(dir, ['--tarball', tarball]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^\.gateline\/core\/roles\/verifier\.md: is missing \(create-gateline@0\.1\.0 has it\)$/m);
    expect(run.stderr).toMatch(/^\.gateline\/core\/src\/render\/extra\.ts: is not in create-gateline@0\.1\.0$/m);
  });

  it('--json gives the problems as data', async () => {
    const dir = host({}, { adapters: ['claude-code'] });
    writeFileSync(join(dir, '.gateline/core/registry/extra.json'), '{}\n');
    const failed = JSON.parse((await check(dir, ['--tarball', tarball, '--json'])).stdout);
    expect(failed.ok).toBe(false);
    expect(failed.problems[0]).toEqual({ file: '.gateline/core/registry/extra.json', message: 'is not in create-gateline@0.1.0' });
    rmSync(join(dir, '.gateline/core/registry/extra.json'));
    const ok = JSON.parse((await check(dir, ['--tarball', tarball, '--json'])).stdout);
    expect(ok).toMatchObject({ ok: true, package: 'create-gateline@0.1.0', tarballIntegrity: integrity, recorded: false });
  });

  it('a tarball of another version than the lock pins is refused before comparing', async () => {
    const dir = host({}, { adapters: ['claude-code'] });
    rehash(dir, { version: '0.2.0', source: { type: 'embedded', package: 'create-gateline@0.2.0' } });
    const run = await check(dir, ['--tarball', tarball]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /\.tgz: is create-gateline@0\.1\.0, but the lock pins create-gateline@0\.2\.0: compare with the tarball of create-gateline@0\.2\.0/,
    );
    expect(run.stderr).not.toMatch(/differs/);
  });

  it('a recorded tarball integrity that is not this tarball is reported, even when every file matches', async () => {
    const dir = host({}, { adapters: ['claude-code'] });
    rehash(dir, { source: { type: 'embedded', package: 'create-gateline@0.1.0', tarballIntegrity: `sha512-${'A'.repeat(86)}==` } });
    const run = await check(dir, ['--tarball', tarball]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /framework-lock\.json: the installer ran from a create-gateline@0\.1\.0 tarball with integrity sha512-A+==, but .* is sha512-/,
    );
    rehash(dir, { source: { type: 'embedded', package: 'create-gateline@0.1.0', tarballIntegrity: integrity } });
    const ok = await check(dir, ['--tarball', tarball]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).not.toMatch(/records no tarball integrity/);
  });

  it('a file that is not a tarball, or not a file, is refused clearly', async () => {
    const dir = host({}, { adapters: ['claude-code'] });
    writeFileSync(join(dir, 'not.tgz'), 'hello\n');
    const bad = await check(dir, ['--tarball', 'not.tgz']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^not\.tgz: is not a gzipped tarball \(.*\): pass the \.tgz file npm pack made$/m);
    const folder = await check(dir, ['--tarball', '.gateline']);
    expect(folder.stderr).toMatch(/^\.gateline: is not a regular file: pass the path of a package tarball/m);
    const none = await check(dir, ['--tarball', 'missing.tgz']);
    expect(none.stderr).toMatch(/^missing\.tgz: cannot be read \(ENOENT\)/m);
    for (const r of [bad, folder, none]) noStack(r.stderr);
    // A gzip bomb is stopped at a bound instead of filling memory.
    writeFileSync(join(dir, 'bomb.tgz'), gzipSync(Buffer.alloc(257 * 1024 * 1024), { level: 1 }));
    const bomb = await check(dir, ['--tarball', 'bomb.tgz']);
    expect(bomb.stderr).toMatch(
      /^bomb\.tgz: unpacks to more than 256 MB, so it is no package tarball: pass the \.tgz file npm pack made$/m,
    );
  });

  it('a core installed from a degit source, or a lock whose package is not a registry name, is refused without running npm', async () => {
    const dir = host({}, { adapters: ['claude-code'] });
    rehash(dir, { source: { type: 'degit', repo: 'someone/gateline', commit: 'abc123' } });
    const degit = await check(dir, ['--tarball', tarball]);
    expect(degit.code).toBe(1);
    expect(degit.stderr).toMatch(/framework-lock\.json: the core came from someone\/gateline at commit abc123 .*not from an npm package/);
    // A hostile lock must not turn the npm call into a fetch of a path, URL or git repository.
    for (const spec of [
      'file:../evil@0.1.0',
      'git+https://example.invalid/x.git@0.1.0',
      '--registry=http://x@0.1.0',
      'create-gateline@^0.1.0',
    ]) {
      rehash(dir, { source: { type: 'embedded', package: spec } });
      const run = await check(dir, [], { ...npmEnv, PATH: '/nonexistent' });
      expect(run.code, spec).toBe(1);
      expect(run.stderr).toMatch(/'source\.package' is .*, not <npm package>@<exact version>: run the installer again/);
    }
  });
});

describe('gateline check-upstream through npm', { timeout: 120_000 }, () => {
  /** A loopback npm registry serving the packed tarball as create-gateline@0.1.0. */
  let server: Server;
  let registry = '';
  beforeAll(async () => {
    const bytes = readFileSync(tarball);
    server = createServer((req, res) => {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      if (req.url === '/create-gateline') {
        const dist = { tarball: `${base}/create-gateline/-/create-gateline-0.1.0.tgz`, integrity, shasum: sha1(bytes) };
        const version = { ...JSON.parse(read(REPO, 'package.json')), dist };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ name: 'create-gateline', 'dist-tags': { latest: '0.1.0' }, versions: { '0.1.0': version } }));
      } else if (req.url === '/create-gateline/-/create-gateline-0.1.0.tgz') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.end(bytes);
      } else {
        res.writeHead(404).end('{}');
      }
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  const viaRegistry = () => ({ ...npmEnv, npm_config_registry: registry, npm_config_cache: testdir() });

  it('fetches the locked version with npm pack and compares: clean passes, a re-hashed edit fails', async () => {
    const dir = host({}, { adapters: ['claude-code'] });
    const ok = await check(dir, [], viaRegistry());
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^\.gateline\/core matches create-gateline@0\.1\.0 from npm: \d+ files\./);
    writeFileSync(join(dir, '.gateline/core/src/shared/lock.ts'), '// gutted\n');
    rehash(dir);
    const bad = await check(dir, [], viaRegistry());
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^\.gateline\/core\/src\/shared\/lock\.ts: differs from create-gateline@0\.1\.0$/m);
    expect(bad.stderr).toMatch(/is not the published create-gateline@0\.1\.0 \(from npm\)/);
  });

  it('a version the registry does not have, offline with an empty cache, or no npm at all: one clear line, exit 1, no stack', async () => {
    const dir = host({}, { adapters: ['claude-code'] });
    rehash(dir, { version: '0.9.0', source: { type: 'embedded', package: 'create-gateline@0.9.0' } });
    const absent = await check(dir, [], viaRegistry());
    expect(absent.code).toBe(1);
    expect(absent.stderr).toMatch(
      /^gateline check-upstream: npm could not fetch create-gateline@0\.9\.0 \(ETARGET: .*\): check your network .*--tarball FILE/m,
    );

    const offline = await check(dir, [], { ...viaRegistry(), npm_config_offline: 'true' });
    expect(offline.code).toBe(1);
    expect(offline.stderr).toMatch(
      /^gateline check-upstream: npm could not fetch create-gateline@0\.9\.0 \(ENOTCACHED: .*\): .*--tarball FILE/m,
    );

    const noNpm = await check(dir, [], { ...npmEnv, PATH: testdir() });
    expect(noNpm.code).toBe(1);
    expect(noNpm.stderr).toBe(
      "gateline check-upstream: npm is not on PATH, so create-gateline@0.9.0 cannot be fetched: install Node's npm, or pass --tarball FILE with the create-gateline@0.9.0 tarball (npm pack create-gateline@0.9.0 on a machine that has the registry)\n",
    );
    for (const r of [absent, offline, noNpm]) noStack(r.stderr);
  });

  it('Ctrl-C while npm fetches stops it: exit 130, nothing changed', async () => {
    const dir = host({}, { adapters: ['claude-code'] });
    const controller = new AbortController();
    const running = check(dir, [], viaRegistry(), controller.signal);
    controller.abort();
    const run = await running;
    expect(run.code).toBe(130);
    expect(run.stderr).toBe('gateline check-upstream: interrupted: check-upstream stopped; nothing was changed\n');
  });

  it('runs from the gateline bin, which lists it', () => {
    const dir = host({}, { adapters: ['claude-code'] });
    const bin = join(REPO, 'src/bin/gateline.ts');
    const help = spawnSync(process.execPath, [bin, '--help'], { encoding: 'utf8' });
    expect(help.stdout).toMatch(/check-upstream +compare the vendored core with the published package/);
    const run = spawnSync(process.execPath, [bin, 'check-upstream', '--tarball', tarball], { cwd: dir, encoding: 'utf8', env: npmEnv });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/matches create-gateline@0\.1\.0/);
  });
});

describe('the lock records what check-upstream needs', () => {
  it('the installer records the integrity npm installed it with, when npm left one', async () => {
    // The installer as npm lays it out: <dir>/node_modules/create-gateline, with npm's hidden lockfile beside it.
    const modules = join(testdir(), 'node_modules');
    const pkg = join(modules, 'create-gateline');
    for (const entry of ['src', 'roles', 'adapters', 'registry', 'templates']) copyTree(join(REPO, entry), join(pkg, entry));
    writeFileSync(join(pkg, 'package.json'), read(REPO, 'package.json'));
    const hidden = { packages: { 'node_modules/create-gateline': { version: '0.1.0', integrity } } };
    writeFileSync(join(modules, '.package-lock.json'), JSON.stringify(hidden));
    const dir = gitRepo();
    const run = await install(dir, ['--yes', '--hook', 'none', '--adapter', 'claude-code'], { packageRoot: pkg });
    expect(run.code, run.stderr).toBe(0);
    const lock = JSON.parse(read(dir, '.gateline/framework-lock.json')) as Lock;
    expect(lock.source).toEqual({ type: 'embedded', package: 'create-gateline@0.1.0', tarballIntegrity: integrity });
    expect((await check(dir, ['--tarball', tarball])).code).toBe(0);

    // Run from a checkout there is no record: the lock says nothing rather than something made up.
    const plain = gitRepo();
    expect((await install(plain, ['--yes', '--hook', 'none', '--adapter', 'claude-code'])).code).toBe(0);
    expect(JSON.parse(read(plain, '.gateline/framework-lock.json')).source).toEqual({ type: 'embedded', package: 'create-gateline@0.1.0' });
  });

  it('a lock whose tarballIntegrity is not a string is refused with its line', () => {
    const dir = host({}, { adapters: ['claude-code'] });
    rehash(dir, { source: { type: 'embedded', package: 'create-gateline@0.1.0', tarballIntegrity: 7 as unknown as string } });
    const run = validate(dir);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/framework-lock\.json:\d+: 'source' must be \{type: 'embedded', package\[, tarballIntegrity\]\}/);
  });
});

function sha1(bytes: Buffer): string {
  return createHash('sha1').update(bytes).digest('hex');
}

describe('reading a package tarball', () => {
  /** One tar entry: a ustar header (with its checksum) and the data padded to 512 bytes. */
  function entry(name: string, data: string, type = '0'): Buffer {
    const header = Buffer.alloc(512);
    header.write(name.slice(0, 100), 0);
    header.write('0000644\0', 100);
    header.write(`${Buffer.byteLength(data).toString(8).padStart(11, '0')}\0`, 124);
    header.write(type, 156);
    header.write('ustar\u000000', 257);
    header.fill(' ', 148, 156);
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    const body = Buffer.alloc(Math.ceil(Buffer.byteLength(data) / 512) * 512);
    body.write(data);
    return Buffer.concat([header, body]);
  }
  const tgz = (...entries: Buffer[]) => gzipSync(Buffer.concat([...entries, Buffer.alloc(1024)]));

  it('takes a long name from a pax header, skips links and folders, and strips the top folder', () => {
    const long = `package/roles/${'n'.repeat(120)}.md`;
    const record = ` path=${long}\n`;
    const pax = `${Buffer.byteLength(record) + String(Buffer.byteLength(record)).length}${record}`;
    const files = readTarball(
      tgz(
        entry('package/', '', '5'),
        entry('PaxHeader', pax, 'x'),
        entry('package/truncated-name', 'long body'),
        entry('package/link', '', '2'),
        entry('package/package.json', '{}'),
      ),
    );
    expect([...files.keys()]).toEqual([long.slice('package/'.length), 'package.json']);
    expect(files.get(long.slice('package/'.length))?.toString()).toBe('long body');
  });

  it('refuses an entry that climbs out, a damaged header, and a cut tarball', () => {
    expect(() => readTarball(tgz(entry('package/../../etc/x', 'x')))).toThrow(/unsafe path: "package\/\.\.\/\.\.\/etc\/x"/);
    const damaged = entry('package/a', 'x');
    damaged.write('b', 9);
    expect(() => readTarball(tgz(damaged))).toThrow(/damaged entry header at byte 0/);
    expect(() => readTarball(gzipSync(entry('package/a', 'x'.repeat(2000)).subarray(0, 700)))).toThrow(/cut short/);
  });
});
