import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { Lane } from './lanes.ts';
import { treeChanges } from './tree.ts';
import type { Workspace } from './workspace.ts';

// Every lane runs from the definitions rendered when the run started. gateline's own inputs (role
// specs, overlays, manifests, the registry) are read once, at the start: argv, grants and
// instructions never see a later edit. What a runner reads when it starts is on disk, though, in
// folders the implementer can write: its agent folders (the rendered files, and any other file
// there that claims a rendered agent's name) and the primary copies' config folder. Those are
// fingerprinted at the start and compared before and after every step; a lane whose runner would
// read other definitions is refused (decision: refuse, not restore, so whatever changed them is
// left in place to be read, and nothing the implementer wrote is silently undone).

export interface Frozen {
  /** The agent folders in the repository, for the tree check. */
  folders: string[];
  /** The definitions that differ from the start: `path (changed|added|removed)`, sorted. */
  changes(): string[];
}

export function freeze(ws: Workspace, lanes: Iterable<Lane>): Frozen {
  const folders = new Set<string>();
  for (const lane of lanes) {
    const { manifest, headless } = lane.adapter;
    folders.add(manifest.outputDir);
    for (const { dir } of manifest.runner?.agents.dirs ?? []) folders.add(dir);
    const configDir = headless?.configDirEnv ? lane.env?.[headless.configDirEnv] : undefined;
    if (configDir) folders.add(join(configDir, 'agents'));
  }
  const read = () => {
    const state = new Map<string, string>();
    for (const folder of [...folders].sort()) fingerprint(isAbsolute(folder) ? folder : join(ws.ctx.root, folder), folder, state);
    return state;
  };
  const start = read();
  return { folders: [...folders].filter((f) => !isAbsolute(f)), changes: () => treeChanges(start, read()) };
}

/** Every entry under `path` by content (a link by its target, a folder by its presence), recursively. */
function fingerprint(path: string, shown: string, state: Map<string, string>): void {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(path);
  } catch {
    state.set(shown, 'absent');
    return;
  }
  if (stat.isSymbolicLink()) state.set(shown, `link:${readlinkSync(path)}`);
  else if (stat.isDirectory()) {
    state.set(shown, 'dir');
    for (const name of readdirSync(path)) fingerprint(join(path, name), `${shown}/${name}`, state);
  } else if (stat.isFile()) state.set(shown, `file:${createHash('sha256').update(readFileSync(path)).digest('hex')}`);
  else state.set(shown, 'other'); // a FIFO or device is never read: reading it could block the run
}
