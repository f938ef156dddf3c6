import { closeSync, constants, type Dirent, fstatSync, openSync, readdirSync, readSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import type { AgentFolders } from './runner.ts';

// The files a runner discovers as agents in a repository, found the way its manifest's
// `runner.agents` says: folders, recursion, endings, skipped prefixes. A link is followed only
// while it stays inside the repository; a link that leaves it, or a file gateline cannot read, is
// reported rather than read, because the runner may still load it.

/** What gateline reads of an agent file at most: runners load larger ones, so a longer head is refused. */
export const HEAD_BYTES = 1024 * 1024;
/** Folders deeper than this below a discovery folder are not searched (a link loop ends here too). */
const MAX_DEPTH = 32;

export interface Discovered {
  /** Repository-relative path, '/'-separated. */
  path: string;
  /** The discovery folder it was found in. */
  dir: string;
  /** Its name from the path: below the folder, without the ending, folders joined by the separator. */
  pathName: string;
  /** Where to read it: the file itself, or a link's target inside the repository (absolute, links resolved). */
  real: string;
  /** `real` relative to the repository root, '/'-separated: a link to a rendered file is that file. */
  realPath: string;
}

export interface Discovery {
  files: Discovered[];
  /** Entries a runner may load that gateline will not read, each with the reason. */
  refused: { path: string; dir: string; message: string }[];
}

/** Every agent file the runner would discover under `root` (in its folders below `base`, when given), sorted by path. */
export function discoverAgents(root: string, agents: AgentFolders, base = ''): Discovery {
  const out: Discovery = { files: [], refused: [] };
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    return out;
  }
  const inside = (real: string) => {
    const rel = relative(realRoot, real);
    return rel === '' || !(rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel));
  };
  const walk = (dir: string, rel: string, realDir: string, under: string, recursive: boolean, depth: number, seen: Set<string>) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(realDir, { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR')
        out.refused.push({ path: rel, dir, message: `cannot be listed (${code}), so gateline cannot see which agents it holds` });
      return;
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = `${rel}/${entry.name}`;
      const name = under ? `${under}/${entry.name}` : entry.name;
      let real = join(realDir, entry.name);
      let kind = entry.isDirectory() ? 'dir' : entry.isFile() ? 'file' : 'other';
      if (entry.isSymbolicLink()) {
        try {
          real = realpathSync(join(root, path));
          const target = statSync(real);
          kind = target.isDirectory() ? 'dir' : target.isFile() ? 'file' : 'other';
        } catch {
          continue; // a broken link loads nothing
        }
        if (!inside(real)) {
          if (kind === 'dir' ? recursive : agentEnding(entry.name, agents) !== undefined)
            out.refused.push({
              path,
              dir,
              message:
                'is a symbolic link that leaves the repository; a runner may load what it points to as an agent, gateline does not read it',
            });
          continue;
        }
      }
      if (kind === 'dir') {
        if (!recursive || depth >= MAX_DEPTH || seen.has(real)) continue;
        walk(dir, path, real, name, recursive, depth + 1, new Set([...seen, real]));
        continue;
      }
      // FIFOs, sockets and devices: the runners load regular files only, and opening one could hang.
      if (kind !== 'file') continue;
      if (agents.ignorePrefix && entry.name.startsWith(agents.ignorePrefix)) continue;
      const ending = agentEnding(entry.name, agents);
      if (ending === undefined) continue;
      const pathName = name.slice(0, -ending.length).split('/').join(agents.pathSeparator);
      out.files.push({ path, dir, pathName, real, realPath: relative(realRoot, real).split(sep).join('/') });
    }
  };
  for (const folder of agents.dirs) {
    const dir = base ? `${base}/${folder.dir}` : folder.dir;
    const recursive = folder.recursive;
    const abs = join(root, dir);
    let real: string;
    try {
      real = realpathSync(abs);
    } catch {
      continue; // no such folder: nothing to discover
    }
    if (!inside(real)) {
      out.refused.push({
        path: dir,
        dir: dir.slice(0, dir.lastIndexOf('/')) || '.',
        message: 'leaves the repository through a symbolic link; a runner reads agents there, gateline does not',
      });
      continue;
    }
    walk(dir, dir, real, '', recursive, 0, new Set([real]));
  }
  return out;
}

/**
 * The folders below the root, other than the root, where a nested runner's agent folders sit in
 * what git tracks: `packages/app` for `packages/app/.claude/agents/x.md`. Read from git's index
 * (what a commit holds), so no walk of the whole tree; none when git cannot answer. `listed` is
 * what trackedAgentPaths found for all runners at once (one git run instead of one each).
 */
export function nestedBases(agents: AgentFolders, listed: string[]): string[] {
  if (!agents.nested) return [];
  const bases = new Set<string>();
  for (const path of listed) {
    for (const { dir } of agents.dirs) {
      for (let at = path.indexOf(`/${dir}/`); at > 0; at = path.indexOf(`/${dir}/`, at + 1)) bases.add(path.slice(0, at));
    }
  }
  return [...bases].sort();
}

/** The tracked files in any nested agent folder of these runners, from one `git ls-files`; none without git. */
export function trackedAgentPaths(root: string, runners: AgentFolders[]): string[] {
  const specs = runners.filter((a) => a.nested).flatMap((a) => a.dirs.map(({ dir }) => `:(glob)**/${dir}/**`));
  if (specs.length === 0) return [];
  try {
    // Loaded on first use: node:child_process costs milliseconds at start-up that render never needs.
    const { execFileSync } = process.getBuiltinModule('node:child_process');
    const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--', ...new Set(specs)], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 256 * 1024 * 1024,
    });
    return listed.split('\0').filter(Boolean);
  } catch {
    return [];
  }
}

/** The longest of the runner's endings that `file` has, when it has one and something before it. */
function agentEnding(file: string, agents: AgentFolders): string | undefined {
  return agents.suffixes.find((s) => file.endsWith(s) && file.length > s.length);
}

/** The first HEAD_BYTES of a regular file, opened without following a link and without waiting on a FIFO. */
export function readHead(path: string): { text: string; whole: boolean } | { error: string } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (error) {
    return { error: (error as NodeJS.ErrnoException).code ?? 'unreadable' };
  }
  try {
    if (!fstatSync(fd).isFile()) return { error: 'not a regular file' };
    const buffer = Buffer.allocUnsafe(HEAD_BYTES + 1);
    let length = 0;
    for (let n = 1; n > 0 && length < buffer.length; length += n) n = readSync(fd, buffer, length, buffer.length - length, null);
    return { text: buffer.subarray(0, Math.min(length, HEAD_BYTES)).toString('utf8'), whole: length <= HEAD_BYTES };
  } catch (error) {
    return { error: (error as NodeJS.ErrnoException).code ?? 'unreadable' };
  } finally {
    closeSync(fd);
  }
}
