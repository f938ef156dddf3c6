import { constants, readFileSync, statSync } from 'node:fs';
import type { Problem } from './problem.ts';

/**
 * Reads an input as the renderer sees it (UTF-8, no BOM, LF line endings); a path that is a
 * folder or cannot be read is a problem naming the file, not an internal error. Undefined when it
 * could not be read (ENOENT included, for the caller).
 * `listed`: a listing of its folder showed a regular file or nothing (paths.ts listedInside), so
 * it is opened without following a link and without waiting on a FIFO, and not looked at first.
 */
export function readInput(path: string, file: string, problems: Problem[], { listed = false } = {}): string | undefined {
  try {
    // A FIFO would block the read and a device would never end: only regular files are read.
    const stat = listed ? undefined : statSync(path);
    if (stat && !stat.isFile() && !stat.isDirectory()) {
      problems.push({ file, message: 'is not a regular file (a FIFO, socket or device): replace it with the file gateline expects' });
      return undefined;
    }
    return normalize(readFileSync(path, listed ? LISTED : 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    const why =
      code === 'EISDIR'
        ? 'is a folder where a file is expected'
        : listed && (code === 'ELOOP' || code === 'EAGAIN')
          ? `changed while gateline read it (${code}: now a link or a FIFO)`
          : `cannot be read (${code ?? (error as Error).message})`;
    problems.push({ file, message: `${why}: replace it with the file gateline expects` });
    return undefined;
  }
}

// Read-only, never through a link at the name, never blocking on a FIFO.
const LISTED = { encoding: 'utf8', flag: constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0) } as const;

export function normalize(text: string): string {
  const bomless = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return bomless.includes('\r') ? bomless.replace(/\r\n?/g, '\n') : bomless;
}

/** 1-based line number of a character offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text[i] === '\n') line++;
  return line;
}

/** Line of the first occurrence of `"key"` in a JSON text, for messages about that key. */
export function lineOfJsonKey(text: string, key: string): number | undefined {
  const at = text.indexOf(JSON.stringify(key));
  return at < 0 ? undefined : lineAt(text, at);
}
