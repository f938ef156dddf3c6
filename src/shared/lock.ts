import { existsSync } from 'node:fs';
import { integrityOf } from './integrity.ts';
import { parseJson } from './json.ts';
import type { Problem } from './problem.ts';
import { lineOfJsonKey, readInput } from './text.ts';

export const LOCK_FILE = 'framework-lock.json';
export const LOCK_VERSION = 1;

export interface Lock {
  lockVersion: number;
  /** The framework version that was vendored. */
  version: string;
  /**
   * Where the core came from: the installer's embedded copy (`package` is `name@version`; with the
   * npm integrity of the tarball it was installed from, when npm recorded one), or a degit source
   * at a commit.
   */
  source: { type: 'embedded'; package: string; tarballIntegrity?: string } | { type: 'degit'; repo: string; commit: string };
  /** The vendored core, relative to the prefix folder. */
  core: string;
  adapters: string[];
  /** Hash of each vendored file, by path relative to the core root. */
  files: Record<string, string>;
  integrity: string;
}

export function readLock(path: string, file: string, problems: Problem[]): Lock | undefined {
  if (!existsSync(path)) {
    problems.push({ file, message: 'the lock file is missing: run the installer again (npm create gateline@latest)' });
    return undefined;
  }
  const text = readInput(path, file, problems);
  if (text === undefined) return undefined;
  const parsed = parseJson(text, file, problems, 'the installer writes the lock: run it again rather than editing this file');
  if (!parsed) return undefined;
  const json = parsed.value;
  const before = problems.length;
  const lock = (json ?? {}) as Record<string, unknown>;
  const bad = (key: string, message: string) =>
    problems.push({ file, line: lineOfJsonKey(text, key), message: `'${key}' ${message}; run the installer again to rewrite the lock` });
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    problems.push({ file, line: 1, message: 'the lock must be a JSON object' });
    return undefined;
  }
  if (lock.lockVersion !== LOCK_VERSION) bad('lockVersion', `must be ${LOCK_VERSION} (this core reads lock format ${LOCK_VERSION})`);
  for (const key of ['version', 'core', 'integrity'])
    if (typeof lock[key] !== 'string' || lock[key] === '') bad(key, 'must be a non-empty string');
  if (!Array.isArray(lock.adapters) || !lock.adapters.every((a) => typeof a === 'string'))
    bad('adapters', 'must be a list of adapter names');
  const files = lock.files;
  if (typeof files !== 'object' || files === null || Array.isArray(files) || !Object.values(files).every((h) => typeof h === 'string')) {
    bad('files', 'must map each vendored file to its hash');
  }
  const source = lock.source as Record<string, unknown> | undefined;
  const sourceOk =
    typeof source === 'object' &&
    source !== null &&
    ((source.type === 'embedded' &&
      typeof source.package === 'string' &&
      (source.tarballIntegrity === undefined || typeof source.tarballIntegrity === 'string')) ||
      (source.type === 'degit' && typeof source.repo === 'string' && typeof source.commit === 'string'));
  if (!sourceOk) bad('source', "must be {type: 'embedded', package[, tarballIntegrity]} or {type: 'degit', repo, commit}");
  return problems.length > before ? undefined : (lock as unknown as Lock);
}

/** The lock for a vendored core, as the installer writes it (and tests build it). */
export function buildLock(coreFiles: Record<string, string>, fields: Omit<Lock, 'lockVersion' | 'files' | 'integrity'>): Lock {
  return { lockVersion: LOCK_VERSION, ...fields, files: coreFiles, integrity: integrityOf(coreFiles) };
}

/** Deterministic JSON: keys sorted at every level, two-space indent, one trailing newline. */
export function stringifyLock(lock: Lock): string {
  const sort = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sort)
      : typeof value === 'object' && value !== null
        ? Object.fromEntries(
            Object.entries(value)
              .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
              .map(([k, v]) => [k, sort(v)]),
          )
        : value;
  return `${JSON.stringify(sort(lock), null, 2)}\n`;
}
