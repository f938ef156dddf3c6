import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readOverlay, splices } from '../render/overlay.ts';
import { FrameworkError, type Problem } from '../shared/problem.ts';
import { lineOfJsonKey } from '../shared/text.ts';
import { type Adapter, takesAgentFile } from './adapter.ts';
import { invocation, resumeTemplate } from './argv.ts';
import type { Binding } from './dispatch.ts';
import { grantArgs } from './grants.ts';
import { assertArgvAllowed } from './guard.ts';
import { needsPrimaryCopy, PRIMARY_PREFIX, primaryCopy } from './primary.ts';
import type { RunRecord } from './record.ts';
import type { Workspace } from './workspace.ts';

// How each bound role is started on its runner, decided from the manifest's args and the
// rendered file, never from the command's name (a wrapper or `/usr/bin/env` hides it):
// - args holding `--agent` then `{role}`: the runner is handed the rendered agent file.
//   - When that file says `mode: subagent` (opencode's do), `--agent gateline-<role>` on a primary
//     copy in a temporary config folder named by headless.config_dir_env (see primary.ts for why the subagent file cannot be
//     run directly).
//   - Else `--agent <role>` on the rendered file (Claude Code).
// - Anything else (Gemini CLI, Codex exec, a `{role}` only inside a prompt template): the runner
//   takes no agent file, so the role's instructions go in the prompt. Its tools are then NOT
//   narrowed by the role in this run; the rendered file narrows them only when a main session of
//   that runner delegates to it.

export interface Lane {
  binding: Binding;
  adapter: Adapter;
  /** What {role} becomes. */
  agent: string;
  env?: Record<string, string>;
  /** What the role is pre-approved for in this runner (grants.ts). */
  grants?: string[];
  /** For runners that take no agent file. */
  instructions?: string;
  /** One line for the run record and the log: how the role's narrowing is applied. */
  how: string;
}

export interface Lanes {
  byRole: Map<string, Lane>;
  /** Said once at the start of a run. */
  notes: string[];
  cleanup(): void;
}

/**
 * `accepted`: adapters the user allows to run a role without its agent file. Without that
 * consent such a binding is refused: the role would get the runner's default tools, which may
 * be more than its capabilities (Gemini CLI's main agent can search the web, for one).
 */
export function prepareLanes(ws: Workspace, record: RunRecord, accepted: string[] = []): Lanes {
  const problems: Problem[] = [];
  const byRole = new Map<string, Lane>();
  const notes: string[] = [];
  let configDir: string | undefined;
  const cleanup = () => {
    if (configDir) rmSync(configDir, { recursive: true, force: true });
  };
  try {
    for (const binding of ws.dispatch.bindings) {
      const adapter = ws.adapters.find((a) => a.name === binding.adapter) as Adapter;
      if (!adapter.headless) {
        problems.push({
          file: adapter.manifest.file,
          message: `has no 'headless' block, so gateline up cannot run the ${binding.role} on ${adapter.name}`,
        });
        continue;
      }
      const file = `${adapter.manifest.outputDir}/${adapter.manifest.filename.replaceAll('{role}', binding.role)}`;
      let lane: Lane;
      if (!takesAgentFile(adapter.headless.args)) {
        if (!accepted.includes(adapter.name)) {
          problems.push({
            file: adapter.manifest.file,
            message:
              `cannot run the ${binding.role} narrowed on ${adapter.name}: it takes no agent file, so the role would get the runner's default tools ` +
              `rather than only its capabilities. Bind the ${binding.role} to another adapter (--bind ${binding.role}=NAME), ` +
              `or pass --accept-unnarrowed ${adapter.name} to run it anyway`,
          });
          continue;
        }
        lane = {
          binding,
          adapter,
          agent: binding.role,
          instructions: instructions(ws, binding.role),
          how: `instructions in the prompt (no agent flag); ${file} is not applied`,
        };
        notes.push(
          `note: ${adapter.name} takes no agent file, so the ${binding.role}'s instructions go in its prompt and its tools are NOT narrowed to the role's ` +
            `capabilities in this run (only the runner's own approval rules apply); ${file} narrows them only when a main session delegates to it.`,
        );
      } else {
        const made = agentFileLane(ws, record, binding, adapter, file, () => {
          configDir ??= mkdtempSync(join(tmpdir(), 'gateline-primary-'));
          return configDir;
        });
        if ('message' in made) {
          problems.push(made);
          continue;
        }
        lane = made;
      }
      const spec = ws.roles.find((r) => r.name === binding.role);
      lane.grants = spec ? grantArgs(adapter.headless, spec) : [];
      // Checked before anything runs, so a bad headless block costs no tokens; step.ts checks the final argv again.
      for (const session of [undefined, ...(resumeTemplate(adapter) ? ['session'] : [])]) {
        const vars = { prompt: 'gateline up: preflight', role: lane.agent, model: binding.model, session };
        const inv = invocation(adapter, { ...vars, grants: lane.grants });
        assertArgvAllowed(inv.command, inv.args, `${adapter.manifest.file} (headless${session ? ', resume' : ''})`, {
          headless: adapter.headless,
          grants: lane.grants,
          vars,
          at: { file: adapter.manifest.file, line: lineOfJsonKey(adapter.manifest.text, 'headless') },
        });
      }
      byRole.set(binding.role, lane);
    }
    if (problems.length) throw new FrameworkError(problems);
    return { byRole, notes, cleanup };
  } catch (error) {
    cleanup();
    throw error;
  }
}

/**
 * A lane whose runner is handed the rendered file by `--agent`. A file that says `mode: subagent`
 * runs as a primary copy in the shared temporary config folder (`configDir` makes it on first use).
 */
function agentFileLane(
  ws: Workspace,
  record: RunRecord,
  binding: Binding,
  adapter: Adapter,
  file: string,
  configDir: () => string,
): Lane | Problem {
  const rendered = readFileSync(join(ws.ctx.root, file), 'utf8');
  if (!needsPrimaryCopy(rendered)) return { binding, adapter, agent: binding.role, how: `--agent ${binding.role}: ${file}` };
  const envName = adapter.headless?.configDirEnv;
  if (!envName) {
    return {
      file: adapter.manifest.file,
      message:
        `${file} is a subagent, which run by name falls back to the runner's default agent, and the manifest names no ` +
        `'headless.config_dir_env' to run a primary copy from: add it, or render the role as a primary agent`,
    };
  }
  const name = `${PRIMARY_PREFIX}${binding.role}`;
  let copy: string;
  try {
    copy = primaryCopy(rendered, binding.role);
  } catch (error) {
    // A subagent file that cannot be copied exactly must not run at all: by name it would fall back.
    return {
      file,
      message: `${(error as Error).message}, so the ${binding.role} cannot run as a primary copy (run by name, the runner would fall back to its default agent)`,
    };
  }
  const dir = configDir();
  mkdirSync(join(dir, 'agents'), { recursive: true });
  writeFileSync(join(dir, 'agents', `${name}.md`), copy);
  record.write(`primary-agents/${name}.md`, copy);
  return {
    binding,
    adapter,
    agent: name,
    env: { [envName]: dir },
    how: `--agent ${name}: a primary copy of ${file}, same permission map`,
  };
}

/** The role's body and overlays, as the rendered agent file carries them. */
function instructions(ws: Workspace, role: string): string {
  const spec = ws.roles.find((r) => r.name === role);
  const problems: Problem[] = [];
  const overlays =
    ws.ctx.mode === 'host'
      ? ['_all', role].map((name) => {
          const file = `${ws.prefix}/overlays/${name}.md`;
          return readOverlay(join(ws.ctx.root, file), file, problems);
        })
      : [];
  if (problems.length) throw new FrameworkError(problems);
  return [spec?.body ?? '', ...splices(overlays)].join('\n\n');
}
