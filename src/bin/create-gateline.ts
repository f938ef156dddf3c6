#!/usr/bin/env node
// `npm create gateline` runs this on the user's Node. It checks the version before loading
// anything that needs Node 24, so an old Node gets a sentence instead of a stack trace.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(
    `create-gateline: needs Node 24 or later; this is ${process.version}. Install Node 24 (for example: nvm install 24) and run it again.\n`,
  );
  process.exitCode = 1;
} else {
  // Before any other module loads, so a second run starts from Node's compile cache (kept in
  // the user's private cache folder, not the shared temp folder).
  (await import('../start/cache.mjs')).compileCache();
  const { run } = await import('../init/cli.ts');
  const controller = new AbortController();
  process.on('SIGINT', () => controller.abort());
  const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY && !process.env.CI);
  process.exitCode = await run(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    cwd: process.cwd(),
    interactive,
    input: process.stdin,
    signal: controller.signal,
  });
}
