// Entry for pre-commit hooks: plain JavaScript, so that an old Node can still read it and say
// what is wrong, where it would otherwise fail on a .ts file with a stack trace. On Node 24 it
// enables the compile cache (a warm hook starts like plain JavaScript) and runs the CLI.
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
