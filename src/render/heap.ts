// A check of many files makes and drops small objects that hold a whole agent file's text. V8
// moves an allocation site to the old generation when its objects survived early on (its
// "pretenuring"), and what an old object holds then lives until the next full collection: peak
// memory of `render --check` at 10000 roles x 3 was 115 MiB or 270 MiB from run to run. Turning the
// heuristic off once a run is known to be large keeps it at 115 (docs/speed.md); small runs, most
// of them, never load node:v8 for it.

let settled = false;

/** Called with the number of files a run plans: from a thousand on, V8 no longer pretenures. */
export function settleHeap(files: number): void {
  if (settled || files < 1000) return;
  settled = true;
  process.getBuiltinModule('node:v8').setFlagsFromString('--no-allocation-site-pretenuring');
}
