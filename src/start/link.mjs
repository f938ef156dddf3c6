// @ts-check
// Links the core's .ts modules into one plain script, so a run starts from one file and one V8
// code cache (start/cache.mjs) instead of 48 modules each compiled on first call. Only the
// shapes the core is written in are linked: named imports and exports, `export { x } from`,
// node: builtins, import.meta.dirname/filename/url, and no import cycles. Anything else throws,
// and the entry then loads the .ts modules as Node does. Each module keeps its lines, so a line
// in the script is the same line of the module.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** @typedef {{ path: string, bytes: Buffer, exports: string[] }} Source */

const IMPORT = /^import\s*\{([^}]*)\}\s*from\s*'([^']+)';/gm;
const IMPORT_BARE = /^import\s*'([^']+)';/gm;
const IMPORT_ALL = /^import\s*\*\s*as\s+([A-Za-z_$][\w$]*)\s+from\s*'([^']+)';/gm;
const RE_EXPORT = /^export\s*\{([^}]*)\}\s*from\s*'([^']+)';/gm;
const EXPORT_LIST = /^export\s*\{([^}]*)\};/gm;
const EXPORT_DECLARATION = /^export\s+((?:async\s+)?function\s*\*?|class|const)\s+([A-Za-z_$][\w$]*)/gm;
const NAME = /^[A-Za-z_$][\w$]*$/;

/**
 * The script for `entry` and every module it reaches (dependencies first, as Node evaluates
 * them), with each module's bytes as read, to tell later whether the script is still current,
 * and the names it exports.
 * @param {string} entry absolute path of the entry module
 * @returns {{ script: string, sources: Source[] }}
 */
export function link(entry) {
  /** @type {Map<string, { index: number, exports: Set<string> }>} */
  const done = new Map();
  const visiting = new Set();
  /** @type {Source[]} */
  const sources = [];
  /** @type {string[]} */
  const bodies = [];
  const { stripTypeScriptTypes } = process.getBuiltinModule('node:module');

  /** @param {string} path */
  const visit = (path) => {
    const known = done.get(path);
    if (known) return known;
    if (visiting.has(path)) throw new Error(`${path}: an import cycle`);
    visiting.add(path);
    const bytes = readFileSync(path);
    const code = quietly(() => stripTypeScriptTypes(bytes.toString('utf8'), { mode: 'strip' }));
    const { body, exports } = rewrite(path, code, visit);
    visiting.delete(path);
    const module = { index: bodies.length, exports: new Set(exports.keys()) };
    bodies.push(
      `__m[${module.index}] = (function () {\n${body}\nreturn { ${[...exports.entries()].map(([name, value]) => `${name}: ${value}`).join(', ')} };\n})();`,
    );
    sources.push({ path, bytes, exports: [...module.exports] });
    done.set(path, module);
    return module;
  };
  const root = visit(entry);
  const script = `'use strict';\n(() => {\nconst __m = [];\n${bodies.join('\n')}\nreturn __m[${root?.index}];\n})();\n`;
  return { script, sources };
}

/**
 * One module's code (types stripped) as a function body, and its exports: name -> expression.
 * @param {string} path
 * @param {string} code
 * @param {(path: string) => { index: number, exports: Set<string> } | undefined} visit
 */
function rewrite(path, code, visit) {
  /** @type {Map<string, string>} */
  const exports = new Map();
  /** The expression for a module specifier: a builtin, or an earlier module's exports. */
  const target = (/** @type {string} */ spec, /** @type {string[]} */ names) => {
    if (spec.startsWith('node:')) {
      if (!process.getBuiltinModule(spec)) throw new Error(`${path}: '${spec}' is not a builtin`);
      return `process.getBuiltinModule(${JSON.stringify(spec)})`;
    }
    if (!spec.startsWith('.') || !spec.endsWith('.ts')) throw new Error(`${path}: imports '${spec}'`);
    const module = visit(join(dirname(path), spec));
    for (const name of names) if (!module?.exports.has(name)) throw new Error(`${path}: '${spec}' does not export '${name}'`);
    return `__m[${module?.index}]`;
  };
  const lines = (/** @type {string} */ text) => '\n'.repeat(text.split('\n').length - 1);

  let body = code
    .replace(IMPORT, (all, list, spec) => {
      const pairs = specifiers(path, list);
      const from = target(
        spec,
        pairs.map(([name]) => name),
      );
      return `const { ${pairs.map(([name, local]) => (name === local ? name : `${name}: ${local}`)).join(', ')} } = ${from};${lines(all)}`;
    })
    .replace(IMPORT_BARE, (all, spec) => `${target(spec, [])};${lines(all)}`)
    .replace(IMPORT_ALL, (all, local, spec) => `const ${local} = ${target(spec, [])};${lines(all)}`)
    .replace(RE_EXPORT, (all, list, spec) => {
      const pairs = specifiers(path, list);
      const from = target(
        spec,
        pairs.map(([name]) => name),
      );
      for (const [name, as] of pairs) exports.set(as, `${from}.${name}`);
      return lines(all);
    })
    .replace(EXPORT_LIST, (all, list) => {
      for (const [local, as] of specifiers(path, list)) exports.set(as, local);
      return lines(all);
    })
    .replace(EXPORT_DECLARATION, (_all, kind, name) => {
      exports.set(name, name);
      return `${kind} ${name}`;
    });
  body = body.replace(/\bimport\.meta\.(dirname|filename|url)\b/g, (_all, key) =>
    JSON.stringify(key === 'dirname' ? dirname(path) : key === 'filename' ? path : pathToFileURL(path).href),
  );
  // What is left is a shape this linker does not know: a default or star export, `export let`,
  // a dynamic import, another import.meta; or a name that would hide the script's own `__m`.
  // Node runs those; this script would get them wrong.
  const unknown = /^(import|export)\b.*$|\bimport\s*\(|\bimport\.meta\b/m.exec(body) ?? /\b__m\b/.exec(code);
  if (unknown) throw new Error(`${path}: cannot link '${unknown[0].slice(0, 60)}'`);
  return { body, exports };
}

/**
 * `a, b as c` -> [[a, a], [b, c]]; type-only names are already blank.
 * @param {string} path
 * @param {string} list
 * @returns {[string, string][]}
 */
function specifiers(path, list) {
  return list
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)
    .map((item) => {
      const [name = '', as = name, ...rest] = item.split(/\s+as\s+/);
      if (rest.length || !NAME.test(name) || !NAME.test(as)) throw new Error(`${path}: cannot link the specifier '${item}'`);
      return [name, as];
    });
}

/**
 * Runs `fn` without the one-time ExperimentalWarning of stripTypeScriptTypes on stderr: the
 * command's output must not change because a cache was filled.
 * @template T
 * @param {() => T} fn
 * @returns {T}
 */
function quietly(fn) {
  const emit = process.emitWarning;
  process.emitWarning = () => {};
  try {
    return fn();
  } finally {
    process.emitWarning = emit;
  }
}
