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
  const { dirname, join, relative } = process.getBuiltinModule('node:path');
  let core;
  let output;
  try {
    // The core linked into one script with V8's code for it; else the .ts modules as Node loads
    // them, from its compile cache (start/cache.mjs).
    const { loadCore } = await import('./start/cache.mjs');
    core = await loadCore(join(import.meta.dirname, 'cli.ts'), argv);
    // Node's own streams only for a terminal: they load two dozen modules (start/stdio.mjs).
    ({ output } = await import('./start/stdio.mjs'));
  } catch (error) {
    // A core with a file deleted, or edited into something Node cannot load: say which and what
    // to do, not a stack trace (validate, which would name it, cannot run without its core).
    const why = String(error instanceof Error ? error.message : error).split('\n')[0];
    // A syntax error names its file and line only at the top of its stack.
    const at = error instanceof Error ? /^file:\/\/(\/\S+):(\d+)$/m.exec(error.stack ?? '') : null;
    const where = at ? `${relative(process.cwd(), decodeURIComponent(at[1] ?? ''))}:${at[2]}: ` : '';
    const folder = relative(process.cwd(), dirname(import.meta.dirname)) || '.';
    process.stderr.write(
      `gateline: the core in ${folder} cannot be loaded (${where}${why}).\n` +
        'Restore it: run the installer again (npm create gateline@latest), or check the folder out again from git.\n',
    );
    if (argv.includes('--verbose') && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    process.exitCode = 1;
  }
  if (core && output) {
    process.exitCode = core.main(argv, { stdout: output(1), stderr: output(2), cwd: process.cwd() });
    core.done();
  }
}
