import { closeSync, constants, openSync, readSync } from 'node:fs';

// Most files a check compares are fresh. Comparing bytes in two reused buffers, after a size
// check, costs no string and no UTF-8 decoding per file: a check of 10000 roles no longer makes
// 30000 strings of garbage only to find them equal.

let onDisk = Buffer.alloc(0);
let planned = Buffer.alloc(0);

/**
 * True when the file at `path` holds exactly `content` in UTF-8. False for anything else (a
 * different size or byte, a file that is gone or cannot be read), for the caller to look at
 * closely. The caller has seen a regular file there (its folder's listing); it is opened without
 * blocking all the same, so a FIFO put there meanwhile cannot hang the check.
 */
export function sameBytes(path: string, content: string): boolean {
  const size = Buffer.byteLength(content);
  if (onDisk.length <= size) {
    onDisk = Buffer.allocUnsafe(2 * size + 1);
    planned = Buffer.allocUnsafe(2 * size + 1);
  }
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return false;
  }
  try {
    // One byte more than planned is asked for: a longer file is not the same. A FIFO (EAGAIN,
    // or nothing to read) or a folder (EISDIR) is not either.
    let read = 0;
    for (let n = -1; n !== 0 && read <= size; read += n) n = readSync(fd, onDisk, read, size + 1 - read, null);
    if (read !== size) return false;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
  planned.write(content, 0, size, 'utf8');
  return onDisk.compare(planned, 0, size, 0, size) === 0;
}
