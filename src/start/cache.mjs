// @ts-check
// The fast start of the core: its modules linked into one script (start/link.mjs) and V8's code
// for that script, taken after a run so it holds every function the run compiled (Node's own
// compile cache is taken before a module runs, so each run compiled them again). Kept per user in
// $XDG_CACHE_HOME/gateline/start (else ~/.cache/...), a folder only this user may write and not
// in a git work tree; Node's compile cache, where the modules load one by one, goes beside it
// (gateline/node) instead of the shared OS temp folder. A run uses the script only when every
// module it was linked from is byte for byte what is on disk now; otherwise, or on any trouble,
// it links again or the entry loads the .ts modules as Node does.
// NODE_DISABLE_COMPILE_CACHE=1 turns this off with Node's cache; --verbose too (its stack traces
// then name the modules' own files and lines).
// Builtins through process.getBuiltinModule: an ESM import of node:fs builds its whole namespace,
// which loads fs/promises, streams and readline, milliseconds of a start that needs none of them.
const { closeSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeSync } =
  process.getBuiltinModule('node:fs');
const { homedir } = process.getBuiltinModule('node:os');
const { dirname, join } = process.getBuiltinModule('node:path');
const { pathToFileURL } = process.getBuiltinModule('node:url');
const vm = process.getBuiltinModule('node:vm');

/**
 * The core's `main` for the two entries (src/gateline.mjs, src/main.ts): from the linked script
 * when it can be used, else from the .ts modules, loaded after Node's compile cache is on. Call
 * `done()` after the run: it keeps the code V8 compiled for the script.
 * @param {string} cli absolute path of src/cli.ts
 * @param {string[]} argv
 * @returns {Promise<{ main: typeof import('../cli.ts').main, done: () => void }>}
 */
export async function loadCore(cli, argv) {
  const fast = await fastStart(cli, argv);
  const main = /** @type {typeof import('../cli.ts').main | undefined} */ (fast?.exports.main);
  if (fast && typeof main === 'function') return { main, done: fast.done };
  compileCache();
  const core = /** @type {typeof import('../cli.ts')} */ (await import(pathToFileURL(cli).href));
  return { main: core.main, done: () => {} };
}

/**
 * The core's exports from the linked script, and `done()` to call after the run, which keeps the
 * code V8 compiled for it. Undefined when the fast start is off or cannot be used here.
 * @param {string} entry absolute path of src/cli.ts
 * @param {string[]} argv
 * @returns {Promise<{ exports: Record<string, unknown>, done: () => void } | undefined>}
 */
async function fastStart(entry, argv) {
  if (process.env.NODE_DISABLE_COMPILE_CACHE || argv.includes('--verbose')) return undefined;
  try {
    const folder = privateFolder('start');
    if (!folder) return undefined;
    const key = fnv(`${process.version}\0${entry}`);
    const stem = join(folder, key);
    let linked = current(stem, entry);
    if (!linked) linked = relink(folder, stem, entry, (await import('./link.mjs')).link);
    // One code cache per command: each holds the functions its command ran.
    const command = ['render', 'validate'].find((c) => argv.includes(c)) ?? 'other';
    const codeFile = `${stem}.${linked.build}.${command}.v8`;
    const cachedData = readOptional(codeFile);
    const script = new vm.Script(linked.script, { filename: join(dirname(entry), 'gateline.linked.js'), cachedData });
    const exports = /** @type {Record<string, unknown>} */ (script.runInThisContext());
    const done = () => {
      if (cachedData && !script.cachedDataRejected) return;
      try {
        writePrivate(codeFile, script.createCachedData());
      } catch {
        // A cache that cannot be written is only slower next time.
      }
    };
    return { exports, done };
  } catch {
    return undefined;
  }
}

/**
 * Node's compile cache for modules loaded one by one (the entries without their fast start, the
 * installer's bins): in this user's private folder, not in the OS temp folder, which other users
 * share (a V8 cache planted there would run as this user). Where NODE_COMPILE_CACHE is set Node
 * has turned it on already; on Windows the temp folder is the user's own.
 */
export function compileCache() {
  if (process.env.NODE_COMPILE_CACHE || process.env.NODE_DISABLE_COMPILE_CACHE) return;
  const { enableCompileCache } = process.getBuiltinModule('node:module');
  if (process.platform === 'win32') return void enableCompileCache();
  try {
    const folder = privateFolder('node');
    if (folder) enableCompileCache(folder);
  } catch {
    // Without a private folder the modules are compiled each run: slower, never unsafe.
  }
}

/**
 * This user's private cache folder `gateline/<name>` under $XDG_CACHE_HOME (else ~/.cache), made
 * if need be; undefined when another user could write on the way, a folder of ours is a link, or
 * it is inside a git work tree; throws when it cannot be made (no home, a read-only home).
 * @param {string} name
 */
function privateFolder(name) {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  if (!base.startsWith('/') || inWorkTree(base)) return undefined;
  mkdirSync(base, { recursive: true, mode: 0o700 });
  // The cache home may be a link: where it leads must not be in a work tree either.
  if (inWorkTree(realpathSync.native(base))) return undefined;
  // Another user who can write on the way could hand this process code to run. The cache home
  // may be a link (to a bigger disk); the two folders below it are made here and may not be.
  const safe = (/** @type {import('node:fs').Stats} */ stat) => stat.isDirectory() && stat.uid === uid && (stat.mode & 0o022) === 0;
  if (!safe(statSync(base))) return undefined;
  let folder = base;
  for (const part of ['gateline', name]) {
    folder = join(folder, part);
    try {
      mkdirSync(folder, { mode: 0o700 });
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'EEXIST') throw error;
    }
    if (!safe(lstatSync(folder))) return undefined;
  }
  return folder;
}

/**
 * Whether `path` or a folder above it holds `.git`: a cache home in a checkout (HOME set to a CI
 * workspace, a home kept in git) would run whatever script a branch planted there.
 * @param {string} path absolute
 */
function inWorkTree(path) {
  for (let at = path; ; at = dirname(at)) {
    if (lstatSync(join(at, '.git'), { throwIfNoEntry: false })) return true;
    if (dirname(at) === at) return false;
  }
}

/**
 * The linked script at `stem` if it was linked from `entry` and every module it was linked from
 * is unchanged on disk: byte for byte, against the copy kept beside the script.
 * @param {string} stem
 * @param {string} entry
 * @returns {{ script: string, build: string } | undefined}
 */
function current(stem, entry) {
  const record = readOptional(`${stem}.json`);
  if (!record) return undefined;
  let parsed;
  try {
    parsed = JSON.parse(record.toString('utf8'));
  } catch {
    return undefined; // a torn or edited record: link again
  }
  const { build, files, from } = parsed ?? {};
  if (from !== entry || typeof build !== 'string' || !/^[0-9a-f]{8}$/.test(build) || !Array.isArray(files)) return undefined;
  const copies = readOptional(`${stem}.${build}.src`);
  if (!copies) return undefined;
  let at = 0;
  for (const { path, size } of files) {
    if (typeof path !== 'string' || !Number.isSafeInteger(size) || size < 0) return undefined;
    const now = readOptional(path);
    if (!now || now.length !== size || !now.equals(copies.subarray(at, at + size))) return undefined;
    at += size;
  }
  if (at !== copies.length) return undefined;
  const script = readOptional(`${stem}.${build}.js`);
  return script ? { script: script.toString('utf8'), build } : undefined;
}

/**
 * Links the core again and stores it under a new, random build name, so a code cache made for
 * an earlier script is never taken for this one (V8 checks little more than a script's length).
 * The record names the build and the modules; their bytes are kept beside the script.
 * @param {string} folder
 * @param {string} stem
 * @param {string} entry
 * @param {typeof import('./link.mjs').link} link loaded only here: most runs find their script current
 */
function relink(folder, stem, entry, link) {
  const { script, sources } = link(entry);
  const build = globalThis.crypto.randomUUID().slice(0, 8);
  writePrivate(`${stem}.${build}.js`, Buffer.from(script));
  writePrivate(`${stem}.${build}.src`, Buffer.concat(sources.map(({ bytes }) => bytes)));
  const files = sources.map(({ path, bytes }) => ({ path, size: bytes.length }));
  writePrivate(`${stem}.json`, Buffer.from(JSON.stringify({ from: entry, build, files })));
  sweep(folder, stem.slice(folder.length + 1), build);
  return { script, build };
}

const HOUR = 3600 * 1000;
const MONTH = 30 * 24 * HOUR;

/**
 * Removes the earlier builds of `key`, every other core's files once its entry is gone (a
 * temporary checkout) or it was last linked a month ago, and torn writes: the folder does not
 * grow for ever.
 * @param {string} folder
 * @param {string} key
 * @param {string} build
 */
function sweep(folder, key, build) {
  const names = readdirSync(folder);
  const gone = new Set();
  for (const name of names) {
    if (!name.endsWith('.json') || name === `${key}.json`) continue;
    const record = join(folder, name);
    let from;
    try {
      if (Date.now() - statSync(record).mtimeMs < MONTH) from = JSON.parse(readFileSync(record, 'utf8')).from;
    } catch {}
    if (typeof from !== 'string' || !statSync(from, { throwIfNoEntry: false })) gone.add(name.slice(0, -'.json'.length));
  }
  for (const name of names) {
    const owner = name.slice(0, name.indexOf('.'));
    const old = owner === key && name !== `${key}.json` && !name.startsWith(`${key}.${build}.`);
    // A write cut short (the process killed) leaves its temporary file: gone after an hour.
    const torn = name.endsWith('.tmp') && Date.now() - (statSync(join(folder, name), { throwIfNoEntry: false })?.mtimeMs ?? 0) > HOUR;
    if (old || torn || gone.has(owner)) rmSync(join(folder, name), { force: true });
  }
}

/** @param {string} path */
function readOptional(path) {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/**
 * Writes through a fresh private file and a rename: a concurrent run reads the old file or the
 * new one, never half of one.
 * @param {string} path
 * @param {Uint8Array} data
 */
function writePrivate(path, data) {
  const temp = `${path}.${process.pid}.${Date.now()}.tmp`;
  // Created exclusively: a link or file planted at the name is refused, never written through.
  const fd = openSync(temp, 'wx', 0o600);
  try {
    for (let at = 0; at < data.length; ) at += writeSync(fd, data, at);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
}

/**
 * FNV-1a, 32 bits, as hex: names a core's files, never vouches for content (the sources are
 * compared whole).
 * @param {string} text
 */
function fnv(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}
