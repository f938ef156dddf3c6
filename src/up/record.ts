import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FrameworkError } from '../shared/problem.ts';

// Every run leaves a record under <prefix>/runs/<id>/ (bindings, prompts, transcripts, parsed
// results, costs, summary), so a failed run can be read afterwards. The records hold prompts and
// runner output, which do not belong in the repository: runs/.gitignore ignores the folder, so
// the host's own .gitignore needs no edit.
//
// No write here follows a symbolic link: the folder is in the tree, so a commit or a runner can
// put a link where gateline is about to write (runs/.gitignore -> ~/.bashrc). Every folder on
// the way must be a real folder, and a file is written as a new file and renamed into place, which
// replaces a link (or a hard link) instead of writing through it.

export interface RunRecord {
  id: string;
  /** Absolute folder of this run. */
  dir: string;
  /** The folder relative to the repository root, for messages. */
  display: string;
  /** Writes a file of the record; objects are written as JSON. Throws FrameworkError rather than follow a link. */
  write(path: string, content: string | object): void;
}

export function openRecord(root: string, prefix: string, now = new Date()): RunRecord {
  const runs = `${prefix}/runs`;
  const realRoot = realpathSync(root);
  folders(root, realRoot, runs.split('/'), '');
  const ignore = `${runs}/.gitignore`;
  const kind = typeOf(join(root, ignore));
  if (kind !== 'absent' && kind !== 'file') throw linked(ignore, kind);
  if (kind === 'absent' || readFileSync(join(root, ignore), 'utf8') !== IGNORE) put(root, realRoot, ignore, IGNORE);
  // Sortable by time; the random tail keeps two runs in the same millisecond apart.
  const id = `${now.toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}`;
  const display = `${runs}/${id}`;
  mkdirSync(join(root, display));
  return {
    id,
    dir: join(root, display),
    display,
    write(path, content) {
      put(root, realRoot, `${display}/${path}`, typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);
    },
  };
}

type Kind = 'absent' | 'file' | 'folder' | 'link' | 'other';

function typeOf(path: string): Kind {
  try {
    const stat = lstatSync(path);
    return stat.isSymbolicLink() ? 'link' : stat.isDirectory() ? 'folder' : stat.isFile() ? 'file' : 'other';
  } catch {
    return 'absent';
  }
}

function linked(rel: string, kind: Kind): FrameworkError {
  const what = kind === 'link' ? 'is a symbolic link' : kind === 'folder' ? 'is a folder' : 'is not a regular file';
  return new FrameworkError([
    { file: rel, message: `${what}: gateline up writes its run records only to real files and folders, never through a link; remove it` },
  ]);
}

/** Makes (or checks) each folder of `parts` below `base`: a link or a file on the way is refused. */
function folders(root: string, realRoot: string, parts: string[], base: string): void {
  let rel = base;
  for (const part of parts) {
    rel = rel ? `${rel}/${part}` : part;
    const kind = typeOf(join(root, rel));
    if (kind === 'absent') mkdirSync(join(root, rel));
    else if (kind !== 'folder') throw linked(rel, kind);
  }
  // A folder swapped for a link between the checks and now is caught here: the real path must be the expected one.
  if (realpathSync(join(root, rel)) !== join(realRoot, rel)) {
    throw new FrameworkError([
      { file: rel, message: 'leads through a symbolic link: gateline up writes no run record there; remove the link' },
    ]);
  }
}

/** Writes `rel` as a new file renamed into place, after checking every folder on the way. */
function put(root: string, realRoot: string, rel: string, text: string): void {
  const parts = rel.split('/');
  const name = parts.pop() as string;
  folders(root, realRoot, parts, '');
  const file = join(root, rel);
  if (typeOf(file) === 'folder') throw linked(rel, 'folder');
  const temp = join(root, ...parts, `.${name}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    // 'wx': a new file, never an existing one or a link's target.
    writeFileSync(temp, text, { flag: 'wx' });
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw new FrameworkError([{ file: rel, message: `could not write the run record: ${(error as Error).message}` }]);
  }
}

const IGNORE = '# Written by gateline up: run records (prompts, transcripts, costs) stay out of git.\n*\n';
