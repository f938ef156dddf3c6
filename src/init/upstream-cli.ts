import { readFileSync, statSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { locate } from '../render/context.ts';
import { boundary } from '../shared/boundary.ts';
import { parseFlags } from '../shared/flags.ts';
import { hashTree } from '../shared/integrity.ts';
import { LOCK_FILE } from '../shared/lock.ts';
import { FrameworkError, Interrupted } from '../shared/problem.ts';
import { compareWithTarball, type Fetched, fetchWithNpm, pinnedPackage } from './upstream.ts';

const COMMAND = 'gateline check-upstream';

const USAGE = `Usage: gateline check-upstream [--tarball FILE] [--json] [--root DIR] [--prefix P] [--verbose]

Compares the vendored core (<prefix>/core) file by file with the published npm package of the
version the lock pins, fetched with npm pack (your npm, registry and cache settings). Reports
every file that differs, is missing or is extra. This catches what validate cannot: an edit
to the core whose hash was written into the lock too.

  --tarball FILE   compare with this package tarball instead of fetching (offline, or a
                   tarball you fetched and checked yourself); it must be the locked version

Exit 0 when the core is the published one, 1 when it is not (or the package cannot be
fetched), 2 a usage error, 130 interrupted.`;

export interface UpstreamIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  cwd: string;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

export async function runCheckUpstream(argv: string[], io: UpstreamIo): Promise<number> {
  const json = argv.includes('--json');
  try {
    const values = parse(argv);
    if (values.help) {
      io.stdout.write(`${USAGE}\n`);
      return 0;
    }
    const ctx = locate(resolve(io.cwd, values.root ?? '.'), values.prefix);
    if (ctx.mode !== 'host' || !ctx.lock || !ctx.prefix)
      throw new FrameworkError([{ file: ctx.root, message: 'is a gateline checkout, not a host: check-upstream checks a vendored core' }]);
    const display = { core: ctx.coreDisplay, lock: `${ctx.prefix}/${LOCK_FILE}` };
    const pinned = pinnedPackage(ctx.lock, display.lock);
    const fetched: Fetched = values.tarball
      ? { from: values.tarball, bytes: readTarballFile(resolve(io.cwd, values.tarball), values.tarball) }
      : await fetchWithNpm(pinned, ctx.root, io.env ?? process.env, COMMAND, io.signal);
    if (io.signal?.aborted) throw new Interrupted('check-upstream stopped; nothing was changed');
    const result = compareWithTarball(fetched, pinned, hashTree(ctx.coreRoot), display);
    const source = fetched.from === 'npm' ? 'from npm' : `in ${fetched.from}`;
    if (result.problems.length) {
      const where = relative(ctx.root, ctx.coreRoot) || '.';
      throw new FrameworkError([
        ...result.problems,
        {
          file: display.lock,
          message:
            `${display.core} is not the published ${result.package} (${source}). If nobody meant to change it, put the published core back: ` +
            `npm create gateline@${pinned.version} -- --yes (add --force if it names files in the way). Either way find out who changed it: git log -p -- ${where} ${display.lock}`,
        },
      ]);
    }
    const unpinned = pinned.tarballIntegrity
      ? ''
      : ' The lock records no tarball integrity (an older installer, or one run from a checkout): file contents compared only.';
    if (json) {
      const recorded = Boolean(pinned.tarballIntegrity);
      io.stdout.write(
        `${JSON.stringify({ ok: true, package: result.package, files: result.expected, tarballIntegrity: result.tarballIntegrity, recorded })}\n`,
      );
    } else io.stdout.write(`${display.core} matches ${result.package} ${source}: ${result.expected} files.${unpinned}\n`);
    return 0;
  } catch (error) {
    return boundary(error, io, {
      command: COMMAND,
      json,
      verbose: argv.includes('--verbose'),
      signal: io.signal,
      interrupted: 'check-upstream stopped; nothing was changed',
    });
  }
}

function readTarballFile(path: string, shown: string): Buffer {
  const hint = 'pass the path of a package tarball (npm pack makes one)';
  try {
    // A FIFO or a device would block or never end: only a regular file is read.
    if (!statSync(path).isFile()) throw new FrameworkError([{ file: shown, message: `is not a regular file: ${hint}` }]);
    return readFileSync(path);
  } catch (error) {
    if (error instanceof FrameworkError) throw error;
    throw new FrameworkError([{ file: shown, message: `cannot be read (${(error as NodeJS.ErrnoException).code}): ${hint}` }]);
  }
}

function parse(argv: string[]) {
  return parseFlags({
    args: argv,
    options: {
      tarball: { type: 'string' },
      json: { type: 'boolean' },
      root: { type: 'string' },
      prefix: { type: 'string' },
      verbose: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  }).values;
}
