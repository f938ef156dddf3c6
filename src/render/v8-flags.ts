// Two V8 heuristics cost a large run more than they give, so they are off while it plans (from a
// thousand planned files on; small runs, most of them, never load node:v8 for this):
// - allocation-site pretenuring: V8 moves an allocation site to the old generation when its
//   objects survived early on, and what an old object holds (a whole agent file's text) then
//   lives until the next full collection: peak memory at 10000 roles x 3 was 115 or 270 MiB from
//   run to run, 115-121 without it;
// - TurboFan: the optimizing compiler runs on a second thread and its work is not paid back in a
//   run of a few seconds; Maglev, the faster compiler, still runs. CPU at 1000 and 10000 roles x 3
//   is about a fifth lower without it (docs/speed.md).
// Both are set back afterwards: V8 stamps its code cache with the flags, so the fast start's
// cache, taken after the run, would otherwise be refused by every next run.
const OFF = '--no-allocation-site-pretenuring --no-turbofan';
const BACK = '--allocation-site-pretenuring --turbofan';

/** Runs `plan`, planning `files` files: from a thousand on, with the two heuristics off meanwhile. */
export function withLargeRunFlags<T>(files: number, plan: () => T): T {
  if (files < 1000) return plan();
  const v8 = process.getBuiltinModule('node:v8');
  v8.setFlagsFromString(OFF);
  try {
    return plan();
  } finally {
    v8.setFlagsFromString(BACK);
  }
}
