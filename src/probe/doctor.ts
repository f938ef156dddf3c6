import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { gitHookPath, validateCommand } from '../host/hooks.ts';
import { HUSKY_HOOK, lefthookFile, PRE_COMMIT_CONFIG, WORKFLOW } from '../host/layout.ts';
import { PACKAGE_ROOT } from '../host/package.ts';
import { MANAGED_MARK, template } from '../host/templates.ts';
import { unwired } from '../host/wired.ts';
import type { Context } from '../render/context.ts';
import { loadManifest, type Manifest } from '../render/manifest.ts';
import { formatProblem, type Problem } from '../shared/problem.ts';
import { hostFindings, runnerHome } from './host-checks.ts';
import { type Finding, type Inspected, inspect, probe, runnerCommands } from './probe.ts';
import { unmanagedAgents, unmanagedFinding } from './unmanaged.ts';

// `gateline doctor`: the probe plus what a host needs to stay healthy, each finding with its fix.

export interface DoctorInputs {
  ctx: Context;
  seen: Inspected;
  /** The `validate --json` problems of the vendored core. */
  problems: Problem[];
  /** The selected adapters' manifests, whose runners may list host checks. */
  manifests: Manifest[];
  /** Per adapter: its runner's home folder, resolved. */
  homes: Record<string, string>;
  packageRoot: string;
  /** Where git runs the pre-commit hook, or why gateline will not use it. */
  gitHook: { path: string } | { refused: string };
  /** The agents the selected runners load that gateline does not render, each with what it grants. */
  unmanaged?: string[];
  /** The hook manager is not wired into git (husky's core.hooksPath, lefthook's or pre-commit's git hook). */
  unwired?: { problem: string; fix: string };
}

/** Pure: judges what `gatherDoctor` collected. */
export function diagnose(inputs: DoctorInputs): Finding[] {
  const { ctx, seen } = inputs;
  const prefix = ctx.prefix ?? '.gateline';
  const selected = ctx.selected ?? [];
  const base = probe({ ...seen, runners: Object.fromEntries(Object.entries(seen.runners).filter(([a]) => selected.includes(a))) });
  // A runner missing on this machine is not a fault of the host: its agents are rendered for whoever
  // uses it. It is said, with how to install it; its runner-side steps are skipped.
  const findings = base.findings
    .filter((f) => ['node', 'git'].includes(f.id) || f.id.startsWith('runner:'))
    .map((f) =>
      f.id.startsWith('runner:') && !base.installed.includes(f.id.slice(7))
        ? { id: f.id, ok: true, message: `${f.message} on this machine: to use this adapter here, ${f.fix}` }
        : f,
    );
  const hook = hookFinding(ctx.root, seen.hook, prefix, inputs.gitHook);
  findings.push(hook.ok && inputs.unwired ? { id: 'hook', ok: false, message: inputs.unwired.problem, fix: inputs.unwired.fix } : hook);
  findings.push(workflowFinding(ctx.root, prefix, inputs.packageRoot));
  findings.push(
    inputs.problems.length
      ? {
          id: 'validate',
          ok: false,
          message: `gateline validate reports ${inputs.problems.length} problem(s):\n${inputs.problems.map((p) => `      ${formatProblem(p)}`).join('\n')}`,
          fix: 'fix each as it says (most often: gateline render)',
        }
      : { id: 'validate', ok: true, message: 'gateline validate passes' },
  );
  findings.push(
    ...hostFindings(
      ctx.root,
      inputs.manifests.filter((m) => base.installed.includes(m.adapter)),
      inputs.homes,
    ),
  );
  findings.push(unmanagedFinding(inputs.unmanaged ?? []));
  return findings;
}

export async function gatherDoctor(ctx: Context, env: NodeJS.ProcessEnv = process.env): Promise<DoctorInputs> {
  const prefix = ctx.prefix ?? '.gateline';
  const adaptersDir = join(ctx.coreRoot, 'adapters');
  const commands = runnerCommands(adaptersDir);
  // A manifest that does not load is left out here: validate, below, reports it.
  const manifests = (ctx.selected ?? []).flatMap((name) => loadManifest(adaptersDir, 'adapters', name, []) ?? []);
  const seen = await inspect(ctx.root, commands, prefix, env);
  const validate = await execa(
    process.execPath,
    [join(ctx.coreRoot, 'src', 'main.ts'), 'validate', '--json', '--root', ctx.root, '--prefix', prefix],
    {
      reject: false,
      env: { ...env, NO_COLOR: '1' },
    },
  );
  let problems: Problem[] = [];
  try {
    problems = (JSON.parse(String(validate.stdout)) as { problems: Problem[] }).problems;
  } catch {
    problems = [{ file: `${prefix}/core/src/main.ts`, message: `validate did not run: ${String(validate.stderr).trim()}` }];
  }
  const home = env.HOME ?? homedir();
  let gitHook: DoctorInputs['gitHook'];
  try {
    gitHook = { path: await gitHookPath(ctx.root) };
  } catch (error) {
    gitHook = { refused: (error as Error).message };
  }
  const homes = Object.fromEntries(manifests.flatMap((m) => (m.runner ? [[m.adapter, runnerHome(m.runner, home, env)]] : [])));
  const unmanaged = unmanagedAgents(ctx.root, manifests);
  return {
    ctx,
    seen,
    problems,
    manifests,
    homes,
    packageRoot: PACKAGE_ROOT,
    gitHook,
    unmanaged,
    unwired: await unwired(ctx.root, seen.hook),
  };
}

function hookFinding(root: string, style: Inspected['hook'], prefix: string, gitHook: DoctorInputs['gitHook']): Finding {
  const command = validateCommand(prefix);
  const reinstall = `re-run the installer (npm create gateline@latest -- --yes --hook ${style})`;
  if (style === 'git' && 'refused' in gitHook)
    return { id: 'hook', ok: false, message: gitHook.refused, fix: 'commit through another hook manager' };
  const file =
    style === 'git' && 'path' in gitHook
      ? gitHook.path
      : { git: '.git/hooks/pre-commit', husky: HUSKY_HOOK, lefthook: lefthookFile(root), 'pre-commit': PRE_COMMIT_CONFIG }[style];
  const path = join(root, file);
  if (!existsSync(path))
    return { id: 'hook', ok: false, message: `no pre-commit hook runs gateline validate (${file} is missing)`, fix: reinstall };
  const text = readFileSync(path, 'utf8');
  if (!text.includes(command)) return { id: 'hook', ok: false, message: `${file} does not run \`${command}\``, fix: reinstall };
  if (style === 'git' && (statSync(path).mode & 0o111) === 0) {
    return { id: 'hook', ok: false, message: `${file} is not executable, so git skips it`, fix: `chmod +x ${file}` };
  }
  return { id: 'hook', ok: true, message: `the ${style} hook runs gateline validate` };
}

function workflowFinding(root: string, prefix: string, packageRoot: string): Finding {
  const file = WORKFLOW;
  const fix = 're-run the installer with --force to restore it (or keep your edits, if they are deliberate)';
  if (!existsSync(join(root, file)))
    return {
      id: 'workflow',
      ok: false,
      message: `${file} is missing: CI does not check the renders`,
      fix: fix.replace(' with --force', ''),
    };
  const text = readFileSync(join(root, file), 'utf8');
  if (text === template(packageRoot, 'gateline-render-check.yml', { prefix }))
    return { id: 'workflow', ok: true, message: `${file} is as installed` };
  // A workflow from before gateline.mjs (main.ts) still runs the check.
  const still = ['gateline.mjs', 'main.ts'].some((entry) => text.includes(`${prefix}/core/src/${entry} render --check`));
  return {
    id: 'workflow',
    ok: false,
    message: `${file} was edited${still ? '' : ' and no longer runs render --check'}${text.includes(MANAGED_MARK) ? '' : ' (its managed header is gone)'}`,
    fix,
  };
}
