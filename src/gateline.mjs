// The plain-JavaScript entry of every command gateline advertises (hooks, CI, docs). Plain
// JavaScript, so that an old Node can still read it and say what is wrong where a .ts entry would
// fail with a stack trace; on Node 24 it starts the core from its linked script (start/cache.mjs),
// or enables the compile cache before any .ts is loaded.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(
    `gateline: needs Node 24 or later, but the node on PATH is ${process.version} (${process.execPath}).\n` +
      'Install Node 24 (for example: nvm install 24 && nvm use 24) and commit again.\n',
  );
  process.exitCode = 1;
} else {
  const argv = process.argv.slice(2);
  // The core linked into one script with V8's code for it; else the .ts modules as Node loads
  // them, from its compile cache (start/cache.mjs).
  const { loadCore } = await import('./start/cache.mjs');
  const core = await loadCore(process.getBuiltinModule('node:path').join(import.meta.dirname, 'cli.ts'), argv);
  process.exitCode = core.main(argv, { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() });
  core.done();
}
