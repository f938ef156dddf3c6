import { join } from 'node:path';
import { type Context, DEFAULT_PREFIX, locate } from '../render/context.ts';
import { listAdapters } from '../render/manifest.ts';
import { narrowedRole, readOverlay } from '../render/overlay.ts';
import { renderAll } from '../render/render.ts';
import { loadRole, type Role } from '../render/role.ts';
import { rules } from '../render/rules.ts';
import { FrameworkError, type Problem } from '../shared/problem.ts';
import { type Adapter, loadAdapters } from './adapter.ts';
import { type Dispatch, dispatch, PIPELINE } from './dispatch.ts';
import { loadRegistry, type Registry } from './registry.ts';
import { vendorConflicts } from './vendors.ts';

// Everything `gateline up` needs before it runs anything: the host (or checkout), its core's
// manifests and roles, the registry, and the bindings. In a host they all come from the vendored
// core the lock names, so `up` dispatches exactly what `render` rendered.

export interface Workspace {
  ctx: Context;
  /** Where run records go: the host's prefix, or the default in a framework checkout. */
  prefix: string;
  /** In --adapter order. */
  adapters: Adapter[];
  roles: Role[];
  registry: Registry;
  dispatch: Dispatch;
}

export interface WorkspaceOptions {
  start: string;
  prefix?: string;
  adapters: string[];
  forced: Record<string, string>;
}

export function loadWorkspace(options: WorkspaceOptions): Workspace {
  const ctx = locate(options.start, options.prefix);
  const known = listAdapters(join(ctx.coreRoot, 'adapters'));
  for (const name of options.adapters) {
    // A problem with the inputs (exit 1, as in the installer), not with the command line's syntax.
    if (!known.includes(name))
      throw new FrameworkError([{ file: '--adapter', message: `unknown adapter '${name}' (known: ${known.join(', ')})` }]);
    if (ctx.selected && !ctx.selected.includes(name)) {
      throw new FrameworkError([
        {
          file: `${ctx.prefix}/framework-lock.json`,
          message: `does not select adapter '${name}', so its agent files are not rendered here (selected: ${ctx.selected.join(', ')}); re-run the installer with --adapter ${name}`,
        },
      ]);
    }
  }
  const adapters = loadAdapters(ctx.coreRoot, ctx.coreDisplay, options.adapters);
  const problems: Problem[] = [];
  const display = [ctx.coreDisplay, 'roles'].filter(Boolean).join('/');
  const specs = PIPELINE.flatMap((name) => loadRole(join(ctx.coreRoot, 'roles'), display, name, problems) ?? []);
  // As the renderer does: a host's overlay may narrow a role's commands, and the grants follow it.
  const overlay = (name: string) => {
    const file = `${ctx.prefix}/overlays/${name}.md`;
    const outside = rules.inputsStayInside(ctx.root, file);
    problems.push(...outside);
    return outside.length ? undefined : readOverlay(join(ctx.root, file), file, problems);
  };
  const all = ctx.mode === 'host' ? overlay('_all') : undefined;
  const [first] = specs;
  if (all && first) problems.push(...rules.overlayCommandsNarrow(first, all)); // _all.md may set none
  const roles = specs.map((role) => {
    if (ctx.mode !== 'host') return role;
    const own = overlay(role.name);
    if (own) problems.push(...rules.overlayCommandsNarrow(role, own));
    return narrowedRole(role, own);
  });
  if (problems.length) throw new FrameworkError(problems);
  const registryFile = [ctx.coreDisplay, 'registry', 'models.yaml'].filter(Boolean).join('/');
  const registry = loadRegistry(join(ctx.coreRoot, 'registry', 'models.yaml'), registryFile);
  const conflicts = vendorConflicts(adapters, registry);
  if (conflicts.length) throw new FrameworkError(conflicts);
  const bound = dispatch({
    adapters: adapters.map((a) => ({
      name: a.name,
      file: a.manifest.file,
      roles: a.manifest.roles,
      modelMap: a.manifest.modelMap,
      modelOverrides: a.manifest.modelOverrides,
      vendors: a.vendors,
    })),
    roles: roles.map((r) => ({ name: r.name, profile: r.profile })),
    pins: registry.pins,
    pinsFile: registry.file,
    forced: options.forced,
  });
  return { ctx, prefix: ctx.prefix ?? options.prefix ?? DEFAULT_PREFIX, adapters, roles, registry, dispatch: bound };
}

/** The bound adapters' agent files must be rendered and fresh: a run on stale files runs an old policy. */
export function assertFresh(ws: Workspace): void {
  const bound = [...new Set(ws.dispatch.bindings.map((b) => b.adapter))];
  const { states, problems } = renderAll({ ...ws.ctx, selected: bound }, { check: true });
  // Orphans are render's business, not a reason to refuse this run.
  const stale = states.filter((s) => s.status === 'missing' || s.status === 'stale');
  const found = [...problems, ...stale.map((s) => ({ file: s.path, message: `is ${s.status}` }))];
  if (found.length) {
    const fix = ws.ctx.mode === 'host' ? `node ${ws.ctx.coreDisplay}/src/gateline.mjs render` : 'node src/main.ts render';
    throw new FrameworkError([
      ...found,
      { file: 'gateline up', message: `the agent files are not fresh: run gateline render first (${fix})` },
    ]);
  }
}
