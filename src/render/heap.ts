// A check of many files makes and drops small objects that hold a whole agent file's text. V8
// moves an allocation site to the old generation when its objects survived early on (its
// "pretenuring"), and what an old object holds then lives until the next full collection: peak
// memory of `render --check` at 10000 roles x 3 was 115 MiB or 270 MiB from run to run. Turning the
// heuristic off while a large run plans keeps it at 115 (docs/speed.md); small runs, most of them,
// never load node:v8 for it. The flag is set back afterwards: V8 stamps its code cache with the
// flags, so the fast start's cache, taken after the run, would otherwise be refused by every next
// run (and compiled and written again each time).

/** Runs `plan`, planning `files` files: from a thousand on, V8 does not pretenure meanwhile. */
export function withSettledHeap<T>(files: number, plan: () => T): T {
  if (files < 1000) return plan();
  const v8 = process.getBuiltinModule('node:v8');
  v8.setFlagsFromString('--no-allocation-site-pretenuring');
  try {
    return plan();
  } finally {
    v8.setFlagsFromString('--allocation-site-pretenuring');
  }
}
