#!/usr/bin/env node
// The `gateline` command in a host. render and validate run the vendored core's own CLI (found
// through the lock), so a local render is exactly CI's `node <prefix>/core/src/gateline.mjs render
// --check`. doctor and up are installer side: they use npm dependencies the core must not.
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const USAGE = `Usage: gateline <command> [options]

  render [--check]    render the agent files (the vendored core of this host)
  validate            the pre-commit check (the vendored core of this host)
  doctor              check this host and its runners, each problem with its fix
  up                  run the roles headless across runners (gateline up --help)
  check-upstream      compare the vendored core with the published package of its version

Each command has --help. render and validate run the core vendored in <prefix>/core, found
through <prefix>/framework-lock.json; adopt gateline with: npm create gateline@latest`;

type Io = { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream; cwd: string };

async function main(argv: string[]): Promise<number> {
  const io = { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() };
  const { boundary } = await import('../shared/boundary.ts');
  try {
    return await dispatch(argv, io);
  } catch (error) {
    // Only what fails before a command's own boundary takes over lands here: a bad command, no host, an unloadable core.
    return boundary(error, io, { command: 'gateline', json: argv.includes('--json'), verbose: argv.includes('--verbose') });
  }
}

async function dispatch(argv: string[], io: Io): Promise<number> {
  const { FrameworkError, UsageError } = await import('../shared/problem.ts');
  const [command] = argv;
  if (command === '--help' || command === '-h') {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command === '--version' || command === '-v') {
    const { readVersion } = await import('../init/vendor.ts');
    const { PACKAGE_ROOT } = await import('../host/package.ts');
    io.stdout.write(`${readVersion(PACKAGE_ROOT)}\n`);
    return 0;
  }
  if (command === undefined) throw new UsageError('no command given (render, validate, doctor or up)');
  if (!['render', 'validate', 'doctor', 'up', 'check-upstream'].includes(command)) throw new UsageError(`unknown command '${command}'`);
  if (command === 'check-upstream') {
    const signal = interruptible();
    const { runCheckUpstream } = await import('../init/upstream-cli.ts');
    return runCheckUpstream(argv.slice(1), { ...io, signal });
  }
  if (command === 'doctor') {
    const signal = interruptible(); // before the import, which takes a while: Ctrl-C meanwhile is seen
    const { runDoctor } = await import('../probe/doctor-cli.ts');
    return runDoctor(argv.slice(1), { ...io, signal });
  }
  if (command === 'up') {
    const signal = interruptible();
    const { run } = await import('../up/cli.ts');
    return run(argv.slice(1), { ...io, env: process.env, signal });
  }
  const { locate } = await import('../render/context.ts');
  const flag = (name: string) => {
    const at = argv.indexOf(name);
    return at >= 0 ? argv[at + 1] : argv.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
  };
  const root = flag('--root');
  const ctx = locate(root ? resolve(io.cwd, root) : io.cwd, flag('--prefix'));
  const entry = join(ctx.coreRoot, 'src', 'cli.ts');
  let cli: typeof import('../cli.ts');
  try {
    cli = await import(pathToFileURL(entry).href);
  } catch (error) {
    // A vendored core that was edited or deleted: validate names the files, the installer restores them.
    throw new FrameworkError([
      {
        file: relative(io.cwd, entry),
        message: `the vendored core cannot be loaded (${(error as Error).message.split('\n')[0]}): run the installer again to restore it`,
      },
    ]);
  }
  // The vendored core has its own error boundary: render and validate fail as in CI.
  return cli.main(argv, { ...io, invokedAs: 'gateline' });
}

/**
 * Ctrl-C (or SIGTERM) aborts the returned signal: the running runner or check is stopped and the
 * command exits 130. After that, a second Ctrl-C falls back to Node's default and ends gateline
 * at once.
 */
function interruptible(): AbortSignal {
  const controller = new AbortController();
  const stop = () => {
    controller.abort();
    // Not `process.once`: execa's exit handler re-raises a signal that has no other listener when
    // it runs, which would kill gateline before it can stop the runner and keep the record.
    setImmediate(() => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return controller.signal;
}

const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(`gateline: needs Node 24 or later; this is ${process.version}. Install Node 24 (for example: nvm install 24).\n`);
  process.exitCode = 1;
} else {
  // First, before any other module loads: later runs start from Node's compile cache (the
  // vendored core's .ts included, in the user's private cache folder), as with src/gateline.mjs.
  (await import('../start/cache.mjs')).compileCache();
  process.exitCode = await main(process.argv.slice(2));
}
