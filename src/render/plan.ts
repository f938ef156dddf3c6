import { join } from 'node:path';
import { type Folders, listedInside } from '../shared/paths.ts';
import type { Problem } from '../shared/problem.ts';
import type { Context } from './context.ts';
import { emitAgent } from './emit.ts';
import { listAdapters, loadManifest, type Manifest } from './manifest.ts';
import { modelFor } from './model.ts';
import { narrowedRole, type Overlay, readOverlay } from './overlay.ts';
import { loadRole, type Role } from './role.ts';
import { rules, toolsFor } from './rules.ts';
import { withLargeRunFlags } from './v8-flags.ts';

export interface PlannedFile {
  /** Relative to the repository root, '/'-separated. */
  path: string;
  /** The folder `path` is in: its adapter's output folder. */
  dir: string;
  content: string;
  adapter: string;
  role: string;
}

export interface Plan {
  files: PlannedFile[];
  /**
   * Every adapter of the core, rendered or not, whose output folder stays inside the repository:
   * their folders are scanned for orphans (a linked folder that leaves it is never touched).
   */
  manifests: Manifest[];
  /** The overlays the rendered roles use (host only), for `validate`. */
  overlays: Overlay[];
  problems: Problem[];
}

/** Plans every file of every selected adapter × role without touching the disk. */
export function planRender(ctx: Context): Plan {
  const files: PlannedFile[] = [];
  // Every file the planner plans, also past a problem: what each adapter would get, to inspect.
  const rest = planEach(
    ctx,
    (file, place) => {
      files[place] = file;
    },
    { pastProblems: true },
  );
  return { files: files.filter(Boolean), ...rest };
}

/**
 * Plans file by file: each planned file is handed to `visit` at once with its place in the plan's
 * order (adapter by adapter, each manifest's roles in turn), so a caller compares it and lets its
 * content go. The walk goes role by role, every adapter of a role before the next role, so a role
 * spec is read once and dropped once its files are planned: memory does not grow with the
 * number of roles. Problems are reported in the plan's order all the same. After the first
 * problem the rest is still planned, to report every problem, but no longer handed on (unless
 * `pastProblems`: nothing is written then, so a render need not compare them).
 */
export function planEach(
  ctx: Context,
  visit: (file: PlannedFile, place: number) => void,
  options: { pastProblems?: boolean } = {},
): Omit<Plan, 'files'> {
  const head: Problem[] = [];
  const manifests = adaptersOf(ctx, head);
  const sink = { problems: head };
  const inputs = inputsOf(ctx, sink);
  // What every file's planning shares; the current file's problems are the sink's.
  const shared: Inputs = { ...inputs, owners: new Map(), sharedDirs: sharedDirs(ctx, manifests), checked: new Set(), sink };
  const byRole = new Map<string, { manifest: Manifest; place: number }[]>();
  let places = 0;
  for (const manifest of manifests) {
    if (!selected(ctx, manifest)) continue;
    for (const role of manifest.roles) {
      const uses = byRole.get(role) ?? [];
      byRole.set(role, uses);
      uses.push({ manifest, place: places++ });
    }
  }
  const found = new Map<number, Problem[]>();
  let failed = head.length > 0;
  withLargeRunFlags(places, () => {
    for (const [role, uses] of byRole) {
      // The spec lives in this loop only: nothing that outlives the role holds it.
      let spec: Role | undefined | null = null;
      for (const { manifest, place } of uses) {
        sink.problems = [];
        // Read once, at the role's first file, whose problems its own problems join.
        if (spec === null) spec = inputs.role(role);
        const file = spec && planFile(ctx, manifest, role, spec, shared);
        if (sink.problems.length) found.set(place, sink.problems);
        failed ||= sink.problems.length > 0;
        if (file && (!failed || options.pastProblems)) visit(file, place);
      }
    }
  });
  const problems = [...head, ...[...found.keys()].sort((a, b) => a - b).flatMap((place) => found.get(place) ?? [])];
  return { manifests, overlays: inputs.overlays(), problems };
}

const selected = (ctx: Context, manifest: Manifest) => !ctx.selected || ctx.selected.includes(manifest.adapter);
const display = (ctx: Context, ...parts: string[]) => [ctx.coreDisplay, ...parts].filter(Boolean).join('/');

/** The core's adapters whose output folder stays inside the repository; the lock's selection must exist. */
function adaptersOf(ctx: Context, problems: Problem[]): Manifest[] {
  const adaptersDir = join(ctx.coreRoot, 'adapters');
  const names = listAdapters(adaptersDir);
  if (names.length === 0) problems.push({ file: display(ctx, 'adapters'), message: 'no adapter found (a folder with a manifest.json)' });
  for (const name of ctx.selected ?? []) {
    if (!names.includes(name)) {
      problems.push({
        file: `${ctx.prefix}/framework-lock.json`,
        message: `selects adapter '${name}', which the core does not have (${names.join(', ')})`,
      });
    }
  }
  const manifests: Manifest[] = [];
  for (const name of names) {
    const outside = rules.inputsStayInside(ctx.root, display(ctx, 'adapters', name, 'manifest.json'));
    problems.push(...outside);
    if (outside.length) continue;
    const manifest = loadManifest(adaptersDir, display(ctx, 'adapters'), name, problems);
    if (!manifest) continue;
    const leak = rules.outputDirNoLink(ctx.root, manifest);
    if (!leak.length) manifests.push(manifest);
    else if (selected(ctx, manifest)) problems.push(...leak);
  }
  return manifests;
}

/** Role specs, and overlays each read once however many adapters use it; problems go to the sink's current list. */
function inputsOf(ctx: Context, sink: { problems: Problem[] }) {
  const overlays = new Map<string, Overlay>();
  // Whether each input folder leaves the repository, and its entries, looked at once in this plan.
  const folders: Folders = new Map();
  const rolesDir = join(ctx.coreRoot, 'roles');
  const rolesDisplay = display(ctx, 'roles');
  return {
    role(name: string): Role | undefined {
      const file = `${rolesDisplay}/${name}.md`;
      const outside = rules.inputsStayInside(ctx.root, file, folders);
      sink.problems.push(...outside);
      if (outside.length) return undefined;
      return loadRole(rolesDir, rolesDisplay, name, sink.problems, { listed: listedInside(file, folders) });
    },
    overlay(name: string): Overlay {
      const file = `${ctx.prefix}/overlays/${name}.md`;
      if (!overlays.has(file)) {
        const outside = rules.inputsStayInside(ctx.root, file, folders);
        sink.problems.push(...outside);
        overlays.set(
          file,
          outside.length ? { file, present: true, empty: false, splice: '' } : readOverlay(join(ctx.root, file), file, sink.problems),
        );
      }
      return overlays.get(file) as Overlay;
    },
    overlays: () => [...overlays.values()],
  };
}

type Inputs = ReturnType<typeof inputsOf> & {
  owners: Map<string, string>;
  sharedDirs: Set<string>;
  checked: Set<string>;
  sink: { problems: Problem[] };
};

/**
 * The output folders that more than one selected adapter renders into. A rendered path is its
 * adapter's output folder, '/', and a file name without '/', so two adapters can render the same
 * path only in the same folder: only there is each path remembered for one-path-one-adapter.
 */
function sharedDirs(ctx: Context, manifests: Manifest[]): Set<string> {
  const seen = new Set<string>();
  const shared = new Set<string>();
  for (const manifest of manifests) {
    if (!selected(ctx, manifest)) continue;
    if (seen.has(manifest.outputDir)) shared.add(manifest.outputDir);
    seen.add(manifest.outputDir);
  }
  return shared;
}

/** One adapter × role: resolve the model, run the role rules, emit. Undefined when refused. */
function planFile(ctx: Context, manifest: Manifest, name: string, spec: Role, inputs: Inputs): PlannedFile | undefined {
  const { problems } = inputs.sink;
  const model = modelFor(manifest, name, spec.profile);
  if (!model) {
    problems.push({
      file: manifest.file,
      message:
        `no model for role '${name}': its capability_profile '${spec.profile}' is not in model_map ` +
        `(${Object.keys(manifest.modelMap).join(', ') || 'empty'}); add it, or set model_overrides.${name}`,
    });
    return undefined;
  }
  const overlays = ctx.mode === 'host' ? [inputs.overlay('_all'), inputs.overlay(name)] : [];
  // Each overlay is checked once, however many adapters render its role (_all.md once in all).
  let overlayRefused = false;
  for (const overlay of overlays) {
    if (inputs.checked.has(overlay.file)) continue;
    inputs.checked.add(overlay.file);
    const narrowed = rules.overlayCommandsNarrow(spec, overlay);
    problems.push(...narrowed);
    overlayRefused ||= narrowed.length > 0;
  }
  if (overlayRefused) return undefined;
  const role = narrowedRole(spec, overlays[1]);
  const path = `${manifest.outputDir}/${manifest.filename.replaceAll('{role}', name)}`;
  // The tools the leak check clears are the ones emitted (an overlay narrows commands, not tools).
  const tools = toolsFor(spec, manifest);
  const floor = rules.floor(spec, manifest);
  const leak = rules.noCapabilityLeak(spec, manifest, tools);
  const shell = rules.commandsNarrowTheShell(spec, manifest);
  const taken = inputs.sharedDirs.has(manifest.outputDir) ? rules.onePathOneAdapter(path, manifest, inputs.owners) : [];
  if (floor.length || leak.length || shell.length || taken.length) {
    problems.push(...floor, ...leak, ...shell, ...taken);
    return undefined;
  }
  const host = ctx.mode === 'host' ? { prefix: ctx.prefix ?? '', coreDisplay: ctx.coreDisplay } : undefined;
  const content = emitAgent({ role, manifest, model, tools, overlays, host });
  return { path, dir: manifest.outputDir, adapter: manifest.adapter, role: name, content };
}
