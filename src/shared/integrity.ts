import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// The vendored core is pinned file by file, so an edit is reported by name, and as a whole
// (`integrity`), so one value says whether anything changed.

/** How hashTree marks an entry that is neither a regular file nor a folder (a link is not content). */
export const NOT_REGULAR = 'not-a-regular-file';

/** sha256 of every regular file under `dir`, keyed by its '/'-separated relative path, sorted. */
export function hashTree(dir: string): Record<string, string> {
  // A null prototype: a vendored file may be called __proto__ or constructor.
  const files: Record<string, string> = Object.create(null);
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) files[path] = hashBytes(readFileSync(join(dir, path)));
      else files[path] = NOT_REGULAR;
    }
  };
  walk('');
  const sorted: Record<string, string> = Object.create(null);
  for (const path of Object.keys(files).sort()) sorted[path] = files[path] as string;
  return sorted;
}

export function hashBytes(bytes: Uint8Array | string): string {
  // Loaded on first use: node:crypto costs milliseconds at start-up that render never needs.
  // The one-shot hash: no Hash object per file (the hook hashes every vendored file).
  const { hash } = process.getBuiltinModule('node:crypto');
  return `sha256-${hash('sha256', bytes, 'base64')}`;
}

/** One hash over the file list: each line is `<hash> <path>`, in path order. */
export function integrityOf(files: Record<string, string>): string {
  const lines = Object.keys(files)
    .sort()
    .map((path) => `${files[path]} ${path}\n`);
  return hashBytes(lines.join(''));
}
