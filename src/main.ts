#!/usr/bin/env node
// The core's TypeScript entry, kept working as the contract describes (`node src/main.ts render
// --check`). What gateline advertises (CI, hooks, the package script) runs src/gateline.mjs
// instead: plain JavaScript, which starts the core from one linked script (src/start), or turns
// the compile cache on before any .ts loads, where this file is itself stripped first. The core uses node: builtins only, so both run from source in
// any repository with nothing installed (docs/contract.md).
//
// Node strips the types of every .ts module it loads, which costs more than the rendering
// itself. The compile cache keeps the stripped code (keyed by content, so an edit is seen), and
// later runs start like plain JavaScript. It goes where Node puts it by default (NODE_COMPILE_CACHE,
// else the OS temp folder); NODE_DISABLE_COMPILE_CACHE=1 turns it off.
import { enableCompileCache } from 'node:module';

enableCompileCache();
const { main } = await import('./cli.ts');
process.exitCode = main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() });
