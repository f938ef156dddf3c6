import { NOT_REGULAR } from '../../shared/integrity.ts';
import { checkPrefix, checkRelativePath, escapesThroughSymlink, type Folders, resolvesOutside } from '../../shared/paths.ts';
import type { Problem } from '../../shared/problem.ts';
import { rule } from './rule.ts';

// The containment rules: what gateline reads and writes stays inside the repository, is a regular
// file, and (for the vendored core) is exactly what the lock pins.

export const fileRules = {
  outputDirNoLink: rule(
    'output-dir-no-link',
    'an output folder never leaves the repository, or enters .git, through a symbolic link',
    (root: string, adapter: { file: string; outputDir: string }): Problem[] => {
      const leak = escapesThroughSymlink(root, adapter.outputDir);
      return leak ? [{ file: adapter.file, message: `output_dir ${leak}` }] : [];
    },
  ),

  inputsStayInside: rule(
    'inputs-stay-inside',
    'role specs, manifests and overlays are read only from inside the repository: a link that leaves it is refused unread',
    (root: string, rel: string, folders?: Folders): Problem[] =>
      resolvesOutside(root, rel, folders)
        ? [
            {
              file: rel,
              message: 'is a symbolic link that leaves the repository: gateline reads only files inside it; replace the link with the file',
            },
          ]
        : [],
  ),

  regularFilesOnly: rule(
    'regular-files-only',
    'gateline writes only regular files: a symbolic link or other entry at a rendered path is refused',
    (path: string, entry: { isFile(): boolean; isSymbolicLink(): boolean }): Problem[] => {
      if (entry.isFile()) return [];
      const what = entry.isSymbolicLink()
        ? 'is a symbolic link; gateline writes only regular files'
        : 'is in the way and is not a regular file';
      return [{ file: path, message: `'${path}' ${what}: move it, then run gateline render` }];
    },
  ),

  handWrittenStays: rule(
    'hand-written-stays',
    'a file without the RENDERED header is never overwritten or deleted',
    (path: string, rendered: boolean): Problem[] =>
      rendered
        ? []
        : [
            {
              file: path,
              message:
                'was written by hand (no RENDERED header), and gateline never overwrites it: move it away or delete it, then run gateline render',
            },
          ],
  ),

  prefixIsPlain: rule(
    'prefix-is-plain',
    'the host prefix is a plain relative folder name that needs no quoting in hooks, workflows and scripts',
    (prefix: string): Problem[] => {
      const problems: Problem[] = [];
      checkPrefix(prefix, (message) => problems.push({ file: '--prefix', message }));
      return problems;
    },
  ),

  coreInRepo: rule(
    'core-in-repo',
    "the lock's core folder is inside the prefix and reached without a symbolic link that leaves the repository",
    (root: string, lockFile: string, core: string, coreDisplay: string): Problem[] => {
      const problems: Problem[] = [];
      checkRelativePath(core, (message) => problems.push({ file: lockFile, message: `'core' ${message}` }));
      const leak = problems.length ? undefined : escapesThroughSymlink(root, coreDisplay);
      if (leak) problems.push({ file: lockFile, message: `'core' ${leak}` });
      return problems;
    },
  ),

  coreMatchesLock: rule(
    'core-matches-lock',
    'the vendored core is exactly the files the lock pins, all regular files (a symbolic link is not hashed content)',
    (
      lock: { files: Record<string, string>; integrity: string },
      integrity: string,
      actual: Record<string, string>,
      at: { lockFile: string; coreDisplay: string },
    ): Problem[] => {
      const problems: Problem[] = [];
      const reinstall = 'restore it with git, or run the installer again to re-vendor the core';
      if (integrity !== lock.integrity) {
        problems.push({
          file: at.lockFile,
          message: "'integrity' does not match the lock's own file list: the lock was edited by hand; run the installer again",
        });
      }
      for (const [path, hash] of Object.entries(lock.files)) {
        const file = `${at.coreDisplay}/${path}`;
        if (!Object.hasOwn(actual, path)) problems.push({ file, message: `is missing from the vendored core: ${reinstall}` });
        else if (actual[path] === NOT_REGULAR)
          problems.push({ file, message: `is not a regular file (a link's target is not pinned by the lock): ${reinstall}` });
        else if (actual[path] !== hash)
          problems.push({ file, message: `was edited after vendoring (it no longer matches the lock): ${reinstall}` });
      }
      for (const path of Object.keys(actual)) {
        if (!Object.hasOwn(lock.files, path)) {
          problems.push({
            file: `${at.coreDisplay}/${path}`,
            message: 'is not part of the vendored core the lock pins: delete it, or run the installer again',
          });
        }
      }
      return problems;
    },
  ),

  overlaysInPlace: rule(
    'overlays-in-place',
    'every overlay a rendered role uses exists and is not empty (an emptied policy file is refused, not rendered away)',
    (overlays: { file: string; present: boolean; empty: boolean }[]): Problem[] =>
      overlays.flatMap((overlay): Problem[] => {
        if (!overlay.present)
          return [{ file: overlay.file, message: 'overlay is missing: create it (a comment-only stub splices nothing and is fine)' }];
        if (overlay.empty)
          return [{ file: overlay.file, message: 'overlay is empty: write your policy there, or restore the comment-only stub' }];
        return [];
      }),
  ),
};
