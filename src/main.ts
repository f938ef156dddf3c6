#!/usr/bin/env node
// The core's TypeScript entry, kept working as the contract describes (`node src/main.ts render
// --check`). It runs exactly what src/gateline.mjs runs: that plain-JavaScript entry is what
// gateline advertises (CI, hooks, the package script), because it can still say "needs Node 24"
// on an older Node, where this file cannot even be read. The core uses node: builtins only, so
// both run from source in any repository with nothing installed (docs/contract.md).
//
// Node strips the types of every .ts module it loads, and loads the core module by module, which
// costs more than the rendering itself. The entry starts from the core linked into one script
// with V8's code for it (src/start, docs/speed.md), else from Node's compile cache (keyed by
// content, so an edit is seen). NODE_DISABLE_COMPILE_CACHE=1 turns both off.
await import('./gateline.mjs');
