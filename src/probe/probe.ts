import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import semver from 'semver';
import { detectHookStyle } from '../host/hook-style.ts';
import { gitignoreLines } from '../host/layout.ts';
import { listAdapters, loadManifest } from '../render/manifest.ts';

// The environment probe: what a repository and machine have, before anything is written. The
// judging is pure (`probe`) and takes what was inspected as input, so tests feed it; `inspect`
// is the part that looks at the disk and runs `<runner> --version`.

export interface Inspected {
  /** process.versions.node of the Node that will run the core. */
  node: string;
  git: boolean;
  /** Per adapter: its runner and the version found on PATH (undefined: not found). */
  runners: Record<string, RunnerFacts & { version?: string }>;
  hook: 'husky' | 'lefthook' | 'pre-commit' | 'git';
  nodeProject: boolean;
  /** package.json already has a `gateline` script. */
  packageScript: boolean;
  githubActions: boolean;
  /** The .gitignore lines gateline needs that are missing. */
  gitignoreMissing: string[];
}

/** What the probe needs of a runner, from its adapter's manifest. */
export interface RunnerFacts {
  /** `headless.command`: the executable looked for on PATH. */
  command: string;
  /** `runner.package` and `runner.proven`: what to install, and the version the conformance suite proves. */
  package?: string;
  proven?: string;
}

export type Fix = 'git-init' | 'package-script' | 'gitignore';

export interface Finding {
  /** Stable id, for --json and tests. */
  id: string;
  ok: boolean;
  message: string;
  /** What to do about it, when something should be done. */
  fix?: string;
  /** Set when create-gateline can make this fix itself, with consent. */
  autofix?: Fix;
}

export interface Probe {
  findings: Finding[];
  /** Adapters whose runner is on PATH. */
  installed: string[];
}

export function probe(seen: Inspected): Probe {
  const findings: Finding[] = [];
  const major = Number(seen.node.split('.')[0]);
  findings.push(
    major >= 24
      ? { id: 'node', ok: true, message: `Node ${seen.node}` }
      : {
          id: 'node',
          ok: false,
          message:
            seen.node === 'none'
              ? 'no node on PATH: the gateline core, its hook and CI need Node 24 or later'
              : `Node ${seen.node} on PATH is too old: the gateline core, its hook and CI need Node 24 or later`,
          fix: 'install Node 24 (for example: nvm install 24 && nvm use 24, or https://nodejs.org); create-gateline will not change your Node',
        },
  );
  findings.push(
    seen.git
      ? { id: 'git', ok: true, message: 'a git repository' }
      : {
          id: 'git',
          ok: false,
          message: 'not a git repository',
          fix: 'run git init (create-gateline can do it: --git-init)',
          autofix: 'git-init',
        },
  );
  const installed: string[] = [];
  for (const [adapter, runner] of Object.entries(seen.runners)) {
    const pinned = runner.package && runner.proven ? `${runner.package}@${runner.proven}` : undefined;
    if (!runner.version) {
      findings.push({
        id: `runner:${adapter}`,
        ok: false,
        message: `${runner.command}${runner.command === adapter ? '' : ` (${adapter})`} is not on PATH`,
        fix: pinned ? `install it: npm install -g ${pinned}` : `install ${runner.command}`,
      });
      continue;
    }
    installed.push(adapter);
    const old = pinned && runner.proven && semver.valid(runner.version) && semver.lt(runner.version, runner.proven);
    findings.push(
      old
        ? {
            id: `runner:${adapter}`,
            ok: false,
            message: `${runner.command} ${runner.version} is older than ${runner.proven}, the version gateline's conformance suite proves`,
            fix: `upgrade it: npm install -g ${pinned}`,
          }
        : { id: `runner:${adapter}`, ok: true, message: `${runner.command} ${runner.version}` },
    );
  }
  findings.push({ id: 'hook', ok: true, message: `hook manager: ${seen.hook === 'git' ? 'none found (plain git hook)' : seen.hook}` });
  if (seen.nodeProject) {
    findings.push(
      seen.packageScript
        ? { id: 'package-script', ok: true, message: 'package.json has a gateline script' }
        : {
            id: 'package-script',
            ok: false,
            message: 'a Node project without a gateline script in package.json',
            fix: 'add "gateline": "node .gateline/core/src/gateline.mjs" to its scripts (create-gateline can: --package-script)',
            autofix: 'package-script',
          },
    );
  }
  findings.push({
    id: 'github-actions',
    ok: true,
    message: seen.githubActions ? 'uses GitHub Actions' : 'no GitHub Actions workflows yet',
  });
  if (seen.gitignoreMissing.length) {
    findings.push({
      id: 'gitignore',
      ok: false,
      message: `.gitignore lacks ${seen.gitignoreMissing.join(', ')} (gateline up keeps its run records there)`,
      fix: 'add them (create-gateline can: --gitignore)',
      autofix: 'gitignore',
    });
  }
  return { findings, installed };
}

/** adapter -> its runner, for every adapter under `adaptersDir` whose manifest has a headless command. */
export function runnerCommands(adaptersDir: string): Record<string, RunnerFacts> {
  const out: Record<string, RunnerFacts> = {};
  for (const name of listAdapters(adaptersDir)) {
    // A broken manifest is skipped: the probe only looks, and validate reports it.
    const manifest = loadManifest(adaptersDir, 'adapters', name, []);
    if (!manifest?.headless) continue;
    out[name] = { command: manifest.headless.command, package: manifest.runner?.package, proven: manifest.runner?.proven };
  }
  return out;
}

/** Looks at a directory and the PATH in `env`; every result is an input of `probe`. */
export async function inspect(
  root: string,
  commands: Record<string, RunnerFacts>,
  prefix: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Inspected> {
  const git = existsSync(root) && (await execa('git', ['rev-parse', '--git-dir'], { cwd: root, reject: false })).exitCode === 0;
  const entries = await Promise.all(
    Object.entries(commands).map(
      async ([adapter, facts]) => [adapter, { ...facts, version: await versionOf(facts.command, env) }] as const,
    ),
  );
  const pkg = readJson(join(root, 'package.json'));
  const gitignore = readLines(join(root, '.gitignore'));
  return {
    // The node that hooks and CI run is the one on PATH, not necessarily the one running this.
    node: (await versionOf('node', env)) ?? 'none',
    git,
    runners: Object.fromEntries(entries),
    hook: existsSync(root) ? detectHookStyle(root) : 'git',
    nodeProject: existsSync(join(root, 'package.json')),
    packageScript: typeof (pkg?.scripts as Record<string, unknown> | undefined)?.gateline === 'string',
    githubActions: existsSync(join(root, '.github', 'workflows')),
    gitignoreMissing: gitignoreLines(prefix).filter((line) => !gitignore.includes(line)),
  };
}

async function versionOf(command: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const run = await execa(command, ['--version'], { env, extendEnv: false, reject: false, timeout: 10_000, stdin: 'ignore' });
  if (run.exitCode !== 0) return undefined;
  return semver.coerce(String(run.stdout))?.version;
}

/** A text file's lines; none when it is absent or not a readable file (the probe only looks). */
function readLines(path: string): string[] {
  try {
    return readFileSync(path, 'utf8').split(/\r?\n/);
  } catch {
    return [];
  }
}

function readJson(path: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
