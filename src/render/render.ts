import type { Problem } from '../shared/problem.ts';
import type { Context } from './context.ts';
import type { Manifest } from './manifest.ts';
import type { Overlay } from './overlay.ts';
import { planEach } from './plan.ts';
import { rules } from './rules.ts';
import { diskComparer, type FileState } from './state.ts';
import { applyStates, folderSpool } from './write.ts';

export interface RenderResult {
  ok: boolean;
  /** Each planned file's state (and orphans); empty when there are problems. */
  states: FileState[];
  problems: Problem[];
  /** The overlays the rendered roles use, for `validate`. */
  overlays: Overlay[];
  /** The core's adapters that loaded, for `validate`'s runner's view. */
  manifests: Manifest[];
  written: string[];
  removed: string[];
}

/**
 * `gateline render [--check]`, and the one way every caller (validate, the installer's preflight,
 * gateline up) compares a plan with the disk. Everything is planned and checked first; with any
 * problem nothing is written. `check` compares only and never writes. Each file is compared as
 * soon as it is planned; only what a non-fresh file needs later (its content to write, or a
 * short diff to report) is kept.
 */
export function renderAll(ctx: Context, { check = false } = {}): RenderResult {
  // A render writes the files of folders that do not exist yet as it goes, out of sight until
  // everything is planned and checked (write.ts folderSpool); any problem or error removes them.
  const spool = check ? undefined : folderSpool(ctx.root);
  try {
    const disk = diskComparer(ctx.root, check ? 'diff' : 'next', spool);
    const plan = planEach(ctx, disk.compare);
    const compared = plan.problems.length ? { states: [], problems: [] } : disk.finish(plan.manifests);
    // An emptied overlay is refused, not rendered away (validate would refuse the result). A missing
    // one is left to validate: minimal trees (tests, a first render) have none.
    const misplaced = check ? [] : rules.overlaysInPlace(plan.overlays.filter((o) => o.present));
    const problems = [...plan.problems, ...misplaced, ...compared.problems];
    const base = { problems, overlays: plan.overlays, manifests: plan.manifests, written: [] as string[], removed: [] as string[] };
    if (problems.length) {
      spool?.abort();
      return { ...base, ok: false, states: [] };
    }
    if (check) return { ...base, ok: compared.states.every((s) => s.status === 'fresh'), states: compared.states };
    return { ...base, ok: true, states: compared.states, ...applyStates(ctx.root, compared.states, spool) };
  } catch (error) {
    spool?.abort();
    throw error;
  }
}
