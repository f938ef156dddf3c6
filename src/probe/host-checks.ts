import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { discoverAgents } from '../render/discovery.ts';
import type { Manifest } from '../render/manifest.ts';
import { type AgentFolders, HOST_CHECKS, type HostCheck, type HostCheckKind, type Runner } from '../render/runner.ts';
import type { Finding } from './probe.ts';

// The host steps a runner needs before it loads a repository's agents, as its manifest's
// `runner.host_checks` lists them. Each kind of check is written once here; which runner needs
// it, where the runner keeps its record and what the finding is called are manifest data.

interface Subject {
  root: string;
  runner: Runner;
  check: HostCheck;
  /** The runner's executable, for the fix. */
  command: string;
  /** The runner's home folder, resolved. */
  home: string;
}

const CHECKS: Record<HostCheckKind, (s: Subject) => Finding> = {
  'agents-acknowledged': acknowledged,
  'project-trusted': trusted,
};

/** The findings of every host check the manifests list: by kind of check, then in the manifests' order. */
export function hostFindings(root: string, manifests: Manifest[], homes: Record<string, string>): Finding[] {
  const findings: Finding[] = [];
  for (const kind of HOST_CHECKS) {
    for (const manifest of manifests) {
      const runner = manifest.runner;
      if (!runner) continue;
      for (const check of runner.hostChecks.filter((c) => c.check === kind)) {
        const command = manifest.headless?.command ?? runner.title;
        findings.push(CHECKS[kind]({ root, runner, check, command, home: homes[manifest.adapter] ?? '' }));
      }
    }
  }
  return findings;
}

/** The runner's home: the folder its `home_env` names when set, else `home` under the user's home. */
export function runnerHome(runner: Runner, userHome: string, env: NodeJS.ProcessEnv): string {
  const moved = runner.homeEnv === undefined ? undefined : env[runner.homeEnv];
  return moved ?? join(userHome, (runner.home ?? '~/').slice(2));
}

/** The runner registers a project agent only once its content hash is acknowledged interactively. */
function acknowledged({ root, runner, check, command, home }: Subject): Finding {
  const agents = agentFiles(root, runner.agents);
  let acked: Record<string, Record<string, string>> = {};
  try {
    acked = JSON.parse(readFileSync(join(home, check.file), 'utf8'));
  } catch {
    // none acknowledged yet
  }
  const mine = acked?.[root] ?? {};
  const pending = agents.filter((a) => mine[a.name] !== createHash('sha256').update(readFileSync(a.path)).digest('hex'));
  if (pending.length === 0) return { id: check.id, ok: true, message: `${runner.title} has acknowledged every rendered agent` };
  return {
    id: check.id,
    ok: false,
    message: `${runner.title} loads project agents only after you acknowledge them, and ${pending.length} are new or changed: ${pending.map((a) => a.name).join(', ')}`,
    fix: `run \`${command}\` in this repository once and accept them (headless runs skip unacknowledged agents silently)`,
  };
}

/** The runner reads the project's agents only in a project its config marks as trusted. */
function trusted({ root, runner, check, command, home }: Subject): Finding {
  const config = join(home, check.file);
  let ok = false;
  try {
    const parsed = parseToml(readFileSync(config, 'utf8')) as { projects?: Record<string, { trust_level?: string }> };
    ok = parsed.projects?.[root]?.trust_level === 'trusted';
  } catch {
    // no config yet
  }
  return ok
    ? {
        id: check.id,
        ok: true,
        message: `${runner.title} trusts this project, so it reads ${runner.agents.dirs.map((d) => d.dir).join(', ')}`,
      }
    : {
        id: check.id,
        ok: false,
        message: `${runner.title} reads project agents only in a trusted project, and this one is not trusted`,
        fix: `run \`${command}\` here once and trust the folder, or add to ${config}:\n        [projects."${root}"]\n        trust_level = "trusted"`,
      };
}

/** The agent files the runner discovers in the repository: name (the path name) and path. */
function agentFiles(root: string, agents: AgentFolders): { name: string; path: string }[] {
  return discoverAgents(root, agents).files.map((f) => ({ name: f.pathName, path: f.real }));
}
