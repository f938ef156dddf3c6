import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { escapesThroughSymlink } from '../shared/paths.ts';
import { FrameworkError } from '../shared/problem.ts';

// Every run leaves a record under <prefix>/runs/<id>/ (bindings, prompts, transcripts, parsed
// results, costs, summary), so a failed run can be read afterwards. The records hold prompts and
// runner output, which do not belong in the repository: runs/.gitignore ignores the folder, so
// the host's own .gitignore needs no edit.

export interface RunRecord {
  id: string;
  /** Absolute folder of this run. */
  dir: string;
  /** The folder relative to the repository root, for messages. */
  display: string;
  /** Writes a file of the record; objects are written as JSON. */
  write(path: string, content: string | object): void;
}

export function openRecord(root: string, prefix: string, now = new Date()): RunRecord {
  const runs = `${prefix}/runs`;
  const leak = escapesThroughSymlink(root, runs);
  if (leak) throw new FrameworkError([{ file: runs, message: `${leak}: run records stay inside the repository` }]);
  mkdirSync(join(root, runs), { recursive: true });
  const ignore = join(root, runs, '.gitignore');
  if (!existsSync(ignore) || readFileSync(ignore, 'utf8') !== IGNORE) writeFileSync(ignore, IGNORE);
  // Sortable by time; the random tail keeps two runs in the same millisecond apart.
  const id = `${now.toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}`;
  const display = `${runs}/${id}`;
  const dir = join(root, display);
  mkdirSync(dir);
  return {
    id,
    dir,
    display,
    write(path, content) {
      const file = join(dir, path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);
    },
  };
}

const IGNORE = '# Written by gateline up: run records (prompts, transcripts, costs) stay out of git.\n*\n';
