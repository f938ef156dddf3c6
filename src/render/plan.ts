import { join } from 'node:path';
import type { Context } from '../shared/context.ts';
import type { Problem } from '../shared/problem.ts';
import { emitAgent } from './emit.ts';
import { listAdapters, loadManifest, type Manifest } from './manifest.ts';
import { modelFor } from './model.ts';
import { type Overlay, readOverlay } from './overlay.ts';
import { loadRole, type Role } from './role.ts';
import { rules, toolsFor } from './rules.ts';

export interface PlannedFile {
  /** Relative to the repository root, '/'-separated. */
  path: string;
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
  const problems: Problem[] = [];
  const at = (...parts: string[]) => [ctx.coreDisplay, ...parts].filter(Boolean).join('/');
  const adaptersDir = join(ctx.coreRoot, 'adapters');
  const names = listAdapters(adaptersDir);
  if (names.length === 0) problems.push({ file: at('adapters'), message: 'no adapter found (a folder with a manifest.json)' });
  for (const name of ctx.selected ?? []) {
    if (!names.includes(name)) {
      problems.push({
        file: `${ctx.prefix}/framework-lock.json`,
        message: `selects adapter '${name}', which the core does not have (${names.join(', ')})`,
      });
    }
  }
  const loaded = names.flatMap((name) => loadManifest(adaptersDir, at('adapters'), name, problems) ?? []);
  const manifests: Manifest[] = [];
  for (const manifest of loaded) {
    const leak = rules.outputDirNoLink(ctx.root, manifest);
    if (!leak.length) manifests.push(manifest);
    else if (!ctx.selected || ctx.selected.includes(manifest.adapter)) problems.push(...leak);
  }

  const roles = new Map<string, Role | undefined>();
  const role = (name: string) => {
    if (!roles.has(name)) roles.set(name, loadRole(join(ctx.coreRoot, 'roles'), at('roles'), name, problems));
    return roles.get(name);
  };
  const overlays = new Map<string, Overlay>();
  const overlay = (name: string) => {
    const file = `${ctx.prefix}/overlays/${name}.md`;
    if (!overlays.has(file)) overlays.set(file, readOverlay(join(ctx.root, file), file, problems));
    return overlays.get(file) as Overlay;
  };

  const files: PlannedFile[] = [];
  const owners = new Map<string, string>();
  for (const manifest of manifests) {
    if (ctx.selected && !ctx.selected.includes(manifest.adapter)) continue;
    for (const name of manifest.roles) {
      const spec = role(name);
      if (!spec) continue;
      const model = modelFor(manifest, name, spec.profile);
      if (!model) {
        problems.push({
          file: manifest.file,
          message:
            `no model for role '${name}': its capability_profile '${spec.profile}' is not in model_map ` +
            `(${Object.keys(manifest.modelMap).join(', ') || 'empty'}); add it, or set model_overrides.${name}`,
        });
        continue;
      }
      const path = `${manifest.outputDir}/${manifest.filename.replaceAll('{role}', name)}`;
      const refused = [
        ...rules.floor(spec, manifest),
        ...rules.noCapabilityLeak(spec, manifest),
        ...rules.onePathOneAdapter(path, manifest, owners),
      ];
      problems.push(...refused);
      if (refused.length) continue;
      const spliced = ctx.mode === 'host' ? [overlay('_all'), overlay(name)] : [];
      files.push({
        path,
        adapter: manifest.adapter,
        role: name,
        content: emitAgent({ role: spec, manifest, model, tools: toolsFor(spec, manifest), overlays: spliced }),
      });
    }
  }
  return { files, manifests, overlays: [...overlays.values()], problems };
}
