// The plain-JavaScript entry of every command gateline advertises (hooks, CI, docs). Plain
// JavaScript, so that an old Node can still read it and say what is wrong where a .ts entry would
// fail with a stack trace; on Node 24 it enables the compile cache before any .ts is loaded.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(
    `gateline: needs Node 24 or later, but the node on PATH is ${process.version} (${process.execPath}).\n` +
      'Install Node 24 (for example: nvm install 24 && nvm use 24) and commit again.\n',
  );
  process.exitCode = 1;
} else {
  const { enableCompileCache } = await import('node:module');
  enableCompileCache();
  const { main } = await import('./cli.ts');
  process.exitCode = main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() });
}
