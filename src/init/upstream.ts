import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import semver from 'semver';
import { hashBytes, NOT_REGULAR } from '../shared/integrity.ts';
import type { Lock } from '../shared/lock.ts';
import { FrameworkError, type Problem } from '../shared/problem.ts';
import { readTarball, TarballError } from './tarball.ts';
import { CORE_ENTRIES, corePackageJson } from './vendor.ts';

// `gateline check-upstream`: the lock proves the core has not drifted from what was installed,
// not that what was installed is the published package (a committer can re-hash the lock). This
// compares the vendored core, file by file, with the package of the locked version from npm.

/** The published package a lock pins. */
export interface Pinned {
  name: string;
  version: string;
  /** The npm integrity of the tarball the installer ran from, when the lock records it. */
  tarballIntegrity?: string;
}

/** The package a lock pins; a lock that pins none (a degit core) or a malformed one is a FrameworkError on the lock. */
export function pinnedPackage(lock: Lock, lockFile: string): Pinned {
  const refuse = (message: string): never => {
    throw new FrameworkError([{ file: lockFile, message }]);
  };
  const { source } = lock;
  if (source.type !== 'embedded') {
    return refuse(
      `the core came from ${source.repo} at commit ${source.commit} (installed with --from), not from an npm package: ` +
        `check-upstream compares with npm packages only. Compare it with that commit yourself (npx degit ${source.repo}#${source.commit} <folder>, then diff -r), ` +
        `or install the published core: npm create gateline@${lock.version}`,
    );
  }
  const at = source.package.lastIndexOf('@');
  const name = source.package.slice(0, at);
  const version = source.package.slice(at + 1);
  // Only a registry name and an exact version reach npm: never a path, URL, git spec or flag.
  if (at <= 0 || !/^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/.test(name) || semver.valid(version) !== version)
    refuse(
      `'source.package' is ${JSON.stringify(source.package)}, not <npm package>@<exact version>: run the installer again to rewrite the lock`,
    );
  if (version !== lock.version)
    refuse(`'source.package' pins ${source.package} but 'version' is ${lock.version}: run the installer again to rewrite the lock`);
  return { name, version, ...(source.tarballIntegrity ? { tarballIntegrity: source.tarballIntegrity } : {}) };
}

export interface Fetched {
  /** Where the tarball came from, for messages: 'npm' or the file given. */
  from: string;
  bytes: Buffer;
}

/** The tarball of `name@version` through `npm pack` (the user's npm, registry and cache settings); `cwd` is the host, whose .npmrc applies. */
export async function fetchWithNpm(
  pinned: Pinned,
  cwd: string,
  env: NodeJS.ProcessEnv,
  command: string,
  signal?: AbortSignal,
): Promise<Fetched> {
  const spec = `${pinned.name}@${pinned.version}`;
  const dest = mkdtempSync(join(tmpdir(), 'gateline-upstream-'));
  const offlineHint = `or pass --tarball FILE with the ${spec} tarball (npm pack ${spec} on a machine that has the registry)`;
  try {
    const run = await execa('npm', ['pack', spec, '--json', '--ignore-scripts', '--pack-destination', dest], {
      cwd,
      env: { ...env, npm_config_update_notifier: 'false' },
      reject: false,
      stdin: 'ignore',
      cancelSignal: signal,
    });
    signal?.throwIfAborted();
    if ((run as { code?: string }).code === 'ENOENT')
      throw new FrameworkError([
        { file: command, message: `npm is not on PATH, so ${spec} cannot be fetched: install Node's npm, ${offlineHint}` },
      ]);
    const out = parseNpmJson(String(run.stdout));
    const info = Array.isArray(out) ? (out[0] as { filename?: unknown } | undefined) : undefined;
    if (run.exitCode !== 0 || typeof info?.filename !== 'string') {
      const error = (out as { error?: { code?: string; summary?: string } } | undefined)?.error;
      const why = error?.summary
        ? `${error.code ? `${error.code}: ` : ''}${error.summary.split('\n')[0]}`
        : String(run.stderr || run.shortMessage)
            .trim()
            .split('\n')
            .slice(-1)[0];
      throw new FrameworkError([
        { file: command, message: `npm could not fetch ${spec} (${why}): check your network and npm registry settings, ${offlineHint}` },
      ]);
    }
    return { from: 'npm', bytes: readFileSync(join(dest, info.filename)) };
  } finally {
    rmSync(dest, { recursive: true, force: true });
  }
}

/** npm's --json output: the JSON after any lines a lifecycle or warning printed first. */
function parseNpmJson(stdout: string): unknown {
  const start = stdout.search(/^[[{]/m);
  try {
    return start < 0 ? undefined : JSON.parse(stdout.slice(start));
  } catch {
    return undefined;
  }
}

export interface Comparison {
  /** `name@version` as found in the tarball. */
  package: string;
  tarballIntegrity: string;
  /** Files the vendored core should have. */
  expected: number;
  problems: Problem[];
}

/**
 * Compares the vendored core (`actual`, as hashTree gives it) with the core the installer would
 * vendor from the tarball. Refuses, as a FrameworkError, a tarball that is not the pinned package.
 */
export function compareWithTarball(
  fetched: Fetched,
  pinned: Pinned,
  actual: Record<string, string>,
  display: { core: string; lock: string },
): Comparison {
  let files: Map<string, Buffer>;
  try {
    files = readTarball(fetched.bytes);
  } catch (error) {
    if (!(error instanceof TarballError)) throw error;
    throw new FrameworkError([{ file: fetched.from, message: `${error.message}: pass the .tgz file npm pack made` }]);
  }
  const manifest = packageJson(files.get('package.json'));
  const found = `${manifest?.name ?? '(no name)'}@${manifest?.version ?? '(no version)'}`;
  const wanted = `${pinned.name}@${pinned.version}`;
  if (found !== wanted)
    throw new FrameworkError([
      {
        file: fetched.from,
        message: `is ${found}, but the lock pins ${wanted}: compare with the tarball of ${wanted} (npm pack ${wanted})`,
      },
    ]);
  const tarballIntegrity = sha512(fetched.bytes);
  const problems: Problem[] = [];
  if (pinned.tarballIntegrity && pinned.tarballIntegrity !== tarballIntegrity)
    problems.push({
      file: display.lock,
      message:
        `the installer ran from a ${wanted} tarball with integrity ${pinned.tarballIntegrity}, but ${fetched.from === 'npm' ? 'npm serves' : `${fetched.from} is`} ${tarballIntegrity}: ` +
        'it was not the published package (a local build or another registry), or the lock was edited',
    });
  const expected = expectedCore(files, pinned.version);
  for (const path of Object.keys(expected)) {
    const has = actual[path];
    if (has === undefined) problems.push({ file: `${display.core}/${path}`, message: `is missing (${wanted} has it)` });
    else if (has === NOT_REGULAR)
      problems.push({ file: `${display.core}/${path}`, message: `is not a regular file (${wanted} has a file here)` });
    else if (has !== expected[path]) problems.push({ file: `${display.core}/${path}`, message: `differs from ${wanted}` });
  }
  for (const path of Object.keys(actual))
    if (!Object.hasOwn(expected, path)) problems.push({ file: `${display.core}/${path}`, message: `is not in ${wanted}` });
  return { package: wanted, tarballIntegrity, expected: Object.keys(expected).length, problems };
}

/** The hashes of what vendorCore would copy out of the package: the core entries (no tests) and its package.json. */
function expectedCore(files: Map<string, Buffer>, version: string): Record<string, string> {
  const hashes: Record<string, string> = Object.create(null);
  for (const [path, bytes] of files) {
    const inCore = CORE_ENTRIES.some((entry) => path === entry || path.startsWith(`${entry}/`));
    if (inCore && !path.endsWith('.test.ts')) hashes[path] = hashBytes(bytes);
  }
  hashes['package.json'] = hashBytes(corePackageJson(version));
  return hashes;
}

function packageJson(bytes: Buffer | undefined): { name?: unknown; version?: unknown } | undefined {
  try {
    return bytes ? JSON.parse(bytes.toString('utf8')) : undefined;
  } catch {
    return undefined;
  }
}

function sha512(bytes: Uint8Array): string {
  return `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
}
