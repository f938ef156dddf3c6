#!/usr/bin/env node
// The `gateline` command in a host: finds the lock, then runs the vendored core's own CLI, so a
// local render is exactly CI's `node <prefix>/core/src/main.ts render --check`.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(`gateline: needs Node 24 or later; this is ${process.version}. Install Node 24 (for example: nvm install 24).\n`);
  process.exitCode = 1;
} else {
  const { enableCompileCache } = await import('node:module');
  enableCompileCache();
  const { locate } = await import('../shared/context.ts');
  const { FrameworkError, formatProblem } = await import('../shared/problem.ts');
  const argv = process.argv.slice(2);
  const flag = (name: string) => {
    const at = argv.indexOf(name);
    return at >= 0 ? argv[at + 1] : argv.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
  };
  try {
    const root = flag('--root');
    const ctx = locate(root ? join(process.cwd(), root) : process.cwd(), flag('--prefix'));
    const cli = (await import(pathToFileURL(join(ctx.coreRoot, 'src', 'cli.ts')).href)) as typeof import('../cli.ts');
    process.exitCode = cli.main(argv, { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd(), invokedAs: 'gateline' });
  } catch (error) {
    if (!(error instanceof FrameworkError)) throw error;
    process.stderr.write(`${error.problems.map(formatProblem).join('\n')}\n`);
    process.exitCode = 1;
  }
}
