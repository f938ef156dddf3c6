#!/usr/bin/env node
// The `gateline` command in a host. render and validate run the vendored core's own CLI (found
// through the lock), so a local render is exactly CI's `node <prefix>/core/src/main.ts render
// --check`. doctor and up are installer side: they use npm dependencies the core must not.
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const USAGE = `Usage: gateline <command> [options]

  render [--check]    render the agent files (the vendored core of this host)
  validate            the pre-commit check (the vendored core of this host)
  doctor              check this host and its runners, each problem with its fix
  up                  run the roles headless across runners (gateline up --help)

Each command has --help. render and validate run the core vendored in <prefix>/core, found
through <prefix>/framework-lock.json; adopt gateline with: npm create gateline@latest`;

async function main(argv: string[]): Promise<number> {
  const io = { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() };
  const [command] = argv;
  if (command === undefined || command === '--help' || command === '-h') {
    io.stdout.write(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  if (command === '--version' || command === '-v') {
    const { readVersion } = await import('../init/vendor.ts');
    const { PACKAGE_ROOT } = await import('../host/package.ts');
    io.stdout.write(`${readVersion(PACKAGE_ROOT)}\n`);
    return 0;
  }
  if (!['render', 'validate', 'doctor', 'up'].includes(command)) {
    io.stderr.write(`gateline: unknown command '${command}'\n${USAGE}\n`);
    return 2;
  }
  if (argv[0] === 'doctor') {
    const { runDoctor } = await import('../probe/doctor-cli.ts');
    return runDoctor(argv.slice(1), io);
  }
  const { enableCompileCache } = await import('node:module');
  enableCompileCache();
  if (argv[0] === 'up') {
    // Ctrl-C aborts the running runner (execa's cancelSignal) and exits 130; after the listener
    // has fired, a second Ctrl-C falls back to Node's default and ends gateline at once.
    const { run } = await import('../up/cli.ts');
    const controller = new AbortController();
    process.once('SIGINT', () => controller.abort());
    process.once('SIGTERM', () => controller.abort());
    return run(argv.slice(1), { ...io, env: process.env, signal: controller.signal });
  }
  const { locate } = await import('../shared/context.ts');
  const { FrameworkError, formatProblem } = await import('../shared/problem.ts');
  const flag = (name: string) => {
    const at = argv.indexOf(name);
    return at >= 0 ? argv[at + 1] : argv.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
  };
  try {
    const root = flag('--root');
    const ctx = locate(root ? resolve(process.cwd(), root) : process.cwd(), flag('--prefix'));
    const entry = join(ctx.coreRoot, 'src', 'cli.ts');
    let cli: typeof import('../cli.ts');
    try {
      cli = await import(pathToFileURL(entry).href);
    } catch (error) {
      // A vendored core that was edited or deleted: validate names the files, the installer restores them.
      throw new FrameworkError([
        {
          file: relative(process.cwd(), entry),
          message: `the vendored core cannot be loaded (${(error as Error).message.split('\n')[0]}): run the installer again to restore it`,
        },
      ]);
    }
    return cli.main(argv, { ...io, invokedAs: 'gateline' });
  } catch (error) {
    if (!(error instanceof FrameworkError)) throw error;
    process.stderr.write(`${error.problems.map(formatProblem).join('\n')}\n`);
    return 1;
  }
}

const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(`gateline: needs Node 24 or later; this is ${process.version}. Install Node 24 (for example: nvm install 24).\n`);
  process.exitCode = 1;
} else {
  process.exitCode = await main(process.argv.slice(2));
}
