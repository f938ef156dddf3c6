import { gunzipSync } from 'node:zlib';

// An npm package tarball (gzipped tar, one top folder, `package/`) read in memory: nothing is
// extracted, so a hostile entry name or link in it cannot write anywhere.

export class TarballError extends Error {
  override name = 'TarballError';
}

/** The regular files of a package tarball, keyed by path without the top folder. */
export function readTarball(gzipped: Uint8Array): Map<string, Buffer> {
  let tar: Buffer;
  try {
    // A bound on what a hostile tarball may inflate to (the real package is well under 1 MB).
    tar = gunzipSync(gzipped, { maxOutputLength: 256 * 1024 * 1024 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      throw new TarballError('unpacks to more than 256 MB, so it is no package tarball');
    throw new TarballError(`is not a gzipped tarball (${(error as Error).message})`);
  }
  const files = new Map<string, Buffer>();
  let longName: string | undefined;
  let offset = 0;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    if (checksum(header) !== Number.parseInt(field(header, 148, 8).trim() || 'NaN', 8))
      throw new TarballError(`has a damaged entry header at byte ${offset}`);
    const size = Number.parseInt(field(header, 124, 12).trim() || '0', 8);
    const type = String.fromCharCode(header[156] ?? 0);
    const data = tar.subarray(offset + 512, offset + 512 + size);
    if (data.length !== size) throw new TarballError('is cut short');
    offset += 512 + Math.ceil(size / 512) * 512;
    if (type === 'x') longName = paxPath(data) ?? longName;
    else if (type === 'L') longName = data.toString('utf8').replace(/\0.*$/s, '');
    else if (type === 'g') continue;
    else {
      const prefix = field(header, 257, 6).startsWith('ustar') ? field(header, 345, 155) : '';
      const name = longName ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
      longName = undefined;
      if (type !== '0' && type !== '\0') continue; // links and folders are not package content
      const path = name.split('/').slice(1).join('/');
      if (!path || path.split('/').some((part) => part === '..' || part === '.' || part === ''))
        throw new TarballError(`has an entry with an unsafe path: ${JSON.stringify(name)}`);
      files.set(path, Buffer.from(data));
    }
  }
  return files;
}

function field(header: Buffer, start: number, length: number): string {
  return header.toString('utf8', start, start + length).replace(/\0.*$/s, '');
}

/** The header's checksum: its bytes summed with the checksum field read as spaces. */
function checksum(header: Buffer): number {
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : (header[i] as number);
  return sum;
}

/** The `path` record of a pax extended header ("<length> path=<value>\n" records, lengths in bytes). */
function paxPath(data: Buffer): string | undefined {
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    const length = Number.parseInt(data.toString('latin1', at, space), 10);
    if (space < 0 || !(length > 0)) return undefined;
    const record = data.toString('utf8', space + 1, at + length - 1);
    if (record.startsWith('path=')) return record.slice('path='.length);
    at += length;
  }
  return undefined;
}
