import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { Options as DegitOptions } from 'degit';
import { detectHookStyle, HOOK_STYLES, type HookStyle } from '../host/hook-style.ts';
import { PACKAGE_ROOT } from '../host/package.ts';
import { type Finding, type Fix, inspect, type Probe, probe, type RunnerFacts, runnerCommands } from '../probe/probe.ts';
import { DEFAULT_PREFIX } from '../render/context.ts';
import { listAdapters } from '../render/manifest.ts';
import { boundary } from '../shared/boundary.ts';
import { parseFlags } from '../shared/flags.ts';
import { LOCK_FILE, readLock } from '../shared/lock.ts';
import { Interrupted, UsageError } from '../shared/problem.ts';
import { InstallError } from './errors.ts';
import { agree, gitInit, undoGitInit } from './fixes.ts';
import { applyInstall, cleanup, type InstallPlan, isNoop, planInstall } from './install.ts';
import { type Answers, ask, askDir, cancelled, confirm, intro, note, outro, type PromptIo } from './prompts.ts';
import { readVersion } from './vendor.ts';

export interface CliIo {
  stdout: Writable;
  stderr: Writable;
  cwd: string;
  /** Prompts only when true: a TTY on both ends, not under CI, no --yes. */
  interactive: boolean;
  input?: Readable;
  /** Aborted by Ctrl-C while writing: everything written so far is rolled back. */
  signal?: AbortSignal;
  degit?: DegitOptions;
  packageRoot?: string;
  /** Where runner CLIs are looked up (PATH); default process.env. */
  env?: NodeJS.ProcessEnv;
}

const USAGE = `Usage: npm create gateline@latest -- [dir] [options]
       create-gateline [dir] [options]

Adopts gateline in a git repository: vendors the core into <prefix>/core with a lock, writes
overlay stubs, a render-check workflow and a pre-commit hook, and renders the agent files.
Running it again on the same version changes nothing; a newer version upgrades.

Options:
  -y, --yes            no prompts: take the defaults and the flags
  --adapter NAME       a runner to render for (repeatable; default: all shipped, or the lock's)
  --prefix P           folder for the core, lock and overlays (default .gateline)
  --hook STYLE         auto | git | husky | lefthook | pre-commit | none (default auto: what the repo uses)
  --from SRC           vendor the core from a degit source (user/repo[/subdir][#ref]) instead of this package
  --dry-run            print what would change and write nothing
  --git-init           run git init first when the directory is not a repository
  --package-script     add a "gateline" script to package.json (Node projects)
  --gitignore          add the lines gateline needs to .gitignore
  --force              overwrite files in the way; allow a downgrade or major upgrade without asking
  --verbose            show the stack trace of an unexpected error
  -h, --help           show this help
  -v, --version        print the version

It first shows what it found (Node, git, runner CLIs, hook manager, package.json, workflows)
and preselects the runners that are installed. On a TTY it offers the fixes it can make; without
one it makes only those its flags ask for. Without a TTY, or under CI, it never prompts. Exit codes: 0 done (or nothing to do, or
cancelled at a prompt), 1 an error (nothing written), 2 a usage error, 130 interrupted
(anything already written is rolled back).`;

const OPTIONS = {
  yes: { type: 'boolean', short: 'y' },
  adapter: { type: 'string', multiple: true },
  prefix: { type: 'string' },
  hook: { type: 'string' },
  from: { type: 'string' },
  'dry-run': { type: 'boolean' },
  'git-init': { type: 'boolean' },
  'package-script': { type: 'boolean' },
  gitignore: { type: 'boolean' },
  force: { type: 'boolean' },
  verbose: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

/**
 * create-gateline, step by step: parse the flags, survey the machine and the repository, choose
 * the answers (prompting for what the flags did not say), agree on the fixes, then install: plan,
 * approve, apply and report. A step that ends the run early returns its exit code; a failure
 * anywhere goes to the one error boundary.
 */
export async function run(argv: string[], io: CliIo): Promise<number> {
  let verbose = argv.includes('--verbose');
  try {
    const flags = parse(argv);
    verbose = flags.verbose ?? false;
    const packageRoot = io.packageRoot ?? PACKAGE_ROOT;
    if (flags.help || flags.version) {
      io.stdout.write(`${flags.help ? USAGE : readVersion(packageRoot)}\n`);
      return 0;
    }
    const session = start(flags, io, packageRoot);
    // The directory comes first: "What I found" describes the folder the user chose.
    if (session.interactive) intro(session.prompt);
    if (session.interactive && flags.dir === undefined) {
      const dir = await askDir(io.cwd, session.prompt);
      if (dir === undefined) return cancel(session);
      flags.dir = dir;
    }
    const found = await survey(session);
    const answers = await choose(session, found);
    if (!answers) return cancel(session);
    const fixes = await consent(session, answers, found);
    if (!fixes) return cancel(session);
    return await install(session, answers, fixes);
  } catch (error) {
    return boundary(error, io, {
      command: 'create-gateline',
      verbose,
      signal: io.signal,
      interrupted: 'every change was rolled back, the repository is as it was.',
    });
  }
}

type Flags = ReturnType<typeof parse>;

/** What every step needs: the flags, the streams, and what this package ships. */
interface Session {
  flags: Flags;
  io: CliIo;
  /** Prompts only when the terminal allows it and --yes was not given. */
  interactive: boolean;
  prompt: PromptIo;
  env: NodeJS.ProcessEnv;
  packageRoot: string;
  shipped: string[];
  /** Each shipped adapter's runner CLI, for finding which are installed. */
  commands: Record<string, RunnerFacts>;
  out: (text: string) => void;
}

function parse(argv: string[]) {
  const { values, positionals } = flagsOf(argv);
  if (positionals.length > 1) throw new UsageError(`expected one directory, got ${positionals.join(' ')}`);
  if (values.hook !== undefined && !(HOOK_STYLES as readonly string[]).includes(values.hook))
    throw new UsageError(`--hook must be one of ${HOOK_STYLES.join(', ')}`);
  return { ...values, dir: positionals[0], hook: values.hook as HookStyle | undefined };
}

function flagsOf(argv: string[]) {
  return parseFlags({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
}

function start(flags: Flags, io: CliIo, packageRoot: string): Session {
  return {
    flags,
    io,
    interactive: io.interactive && !flags.yes,
    prompt: { input: io.input, output: io.stdout },
    env: io.env ?? process.env,
    packageRoot,
    shipped: listAdapters(join(packageRoot, 'adapters')),
    commands: runnerCommands(join(packageRoot, 'adapters')),
    out: (text) => io.stdout.write(`${text}\n`),
  };
}

/** Looks before asking: what the machine and the repository have, shown to the user. */
async function survey(session: Session): Promise<Probe> {
  const { flags, interactive, prompt } = session;
  const found = await look(session, flags.dir ?? '.', flags.prefix ?? DEFAULT_PREFIX);
  // `+` fine, `!` a problem, `~` a problem this run's flags fix; progress lines later start with `>`.
  const fixing = (f: Finding) => f.autofix !== undefined && flags[f.autofix] === true;
  const summary = found.findings
    .map((f) =>
      f.ok ? `+ ${f.message}` : fixing(f) ? `~ ${f.message} (fixing it: --${f.autofix})` : `! ${f.message}${f.fix ? `\n    ${f.fix}` : ''}`,
    )
    .join('\n');
  if (interactive) {
    note(summary, 'What I found', prompt);
  } else session.out(summary);
  return found;
}

async function look(session: Session, dir: string, prefix: string): Promise<Probe> {
  return probe(await inspect(resolve(session.io.cwd, dir), session.commands, prefix, session.env));
}

/** The directory, runners, prefix and hook: the flags, then prompts for the rest; undefined when cancelled. */
async function choose(session: Session, found: Probe): Promise<Answers | undefined> {
  const { flags, io, shipped } = session;
  const prefix = flags.prefix ?? DEFAULT_PREFIX;
  const preselect = (root: string) => {
    // A broken lock preselects nothing; the install that follows reports it.
    const locked = readLock(join(root, prefix, LOCK_FILE), LOCK_FILE, [])?.adapters.filter((a) => shipped.includes(a));
    if (locked?.length) return locked;
    return found.installed.length ? found.installed : shipped;
  };
  if (session.interactive) {
    const given: Partial<Answers> = { dir: flags.dir, adapters: flags.adapter, prefix: flags.prefix, hook: flags.hook };
    const choicesFor = (dir: string) => {
      const root = resolve(io.cwd, dir);
      return { adapters: shipped, selected: preselect(root), detectedHook: detectHookStyle(root) };
    };
    return ask(given, choicesFor, session.prompt);
  }
  const dir = flags.dir ?? '.';
  return { dir, adapters: flags.adapter ?? preselect(resolve(io.cwd, dir)), prefix, hook: flags.hook ?? 'auto' };
}

/** The fixes to make first (git init, a package.json script, .gitignore lines); undefined when a needed one is refused. */
async function consent(session: Session, answers: Answers, found: Probe): Promise<Set<Fix> | undefined> {
  const { flags, io } = session;
  // The survey looked at the directory of the flags; another one chosen at the prompt is looked at again.
  const same = resolve(io.cwd, answers.dir) === resolve(io.cwd, flags.dir ?? '.');
  const fixable = same ? found : await look(session, answers.dir, answers.prefix);
  // Asked once, at the first install: a re-run does not ask again what the user already answered.
  const installed = existsSync(join(resolve(io.cwd, answers.dir), answers.prefix, LOCK_FILE));
  const findings = installed ? fixable.findings.filter((f) => f.autofix !== 'gitignore' || flags.gitignore) : fixable.findings;
  return agree(findings, {
    interactive: session.interactive,
    prompt: session.prompt,
    flags: { 'git-init': flags['git-init'], 'package-script': flags['package-script'], gitignore: flags.gitignore },
  });
}

/** Makes the agreed fixes, plans, approves, applies and reports. A git init it made is undone when the install does not happen. */
async function install(session: Session, answers: Answers, fixes: Set<Fix>): Promise<number> {
  const root = resolve(session.io.cwd, answers.dir);
  if (session.io.signal?.aborted) throw new Interrupted('nothing was written.');
  if (fixes.has('git-init') && session.flags['dry-run']) {
    session.out('--dry-run: would run git init first; nothing was written.');
    return 0;
  }
  if (!existsSync(root) || !statSync(root).isDirectory())
    throw new InstallError(
      `${root} ${existsSync(root) ? 'is not a folder' : 'does not exist'}: create it first (mkdir), or pass an existing directory`,
    );
  const madeGit = fixes.has('git-init');
  if (madeGit) await gitInit(root);
  try {
    const plan = await planFor(session, answers, fixes, root);
    if (!(await approve(session, answers, plan))) return 0;
    const written = await applyInstall(plan, {
      signal: session.io.signal,
      onStep: session.interactive ? undefined : (s) => session.out(`> ${s}`),
    });
    report(session, answers, fixes, plan, written);
    return 0;
  } catch (error) {
    if (madeGit) undoGitInit(root);
    throw error;
  }
}

function planFor(session: Session, answers: Answers, fixes: Set<Fix>, root: string): Promise<InstallPlan> {
  const { flags } = session;
  return planInstall({
    root,
    adapters: answers.adapters.length ? answers.adapters : undefined,
    prefix: answers.prefix,
    hook: answers.hook,
    from: flags.from,
    force: flags.force ?? false,
    degit: session.io.degit,
    packageRoot: session.packageRoot,
    packageScript: fixes.has('package-script'),
    gitignore: fixes.has('gitignore'),
  });
}

/**
 * Whether to write: false (the staged core cleaned up, the reason said) when the plan needs a
 * --force it was not given and the user says no, when there is nothing to change, under
 * --dry-run, or when the user declines the list of changes.
 */
async function approve(session: Session, answers: Answers, plan: InstallPlan): Promise<boolean> {
  const { flags, interactive, prompt, out } = session;
  if (plan.needsConfirmation && !flags.force) {
    if (!interactive) throw new InstallError(`${plan.needsConfirmation}. Re-run with --force to go ahead.`);
    // A downgrade or major upgrade is a step to take on purpose: Enter alone says no.
    if (!(await confirm(`${plan.needsConfirmation}. Go ahead?`, prompt, false))) return stop(session, plan);
  }
  if (isNoop(plan)) {
    cleanup(plan);
    const done = `gateline ${plan.version} is already installed in ${where(answers)} and up to date: nothing to change.`;
    if (interactive) outro(done, prompt);
    else out(done);
    return false;
  }
  const summary = describe(plan);
  if (flags['dry-run']) {
    cleanup(plan);
    out(`${summary}\n\n--dry-run: nothing was written.`);
    return false;
  }
  if (interactive) {
    note(summary, 'About to change', prompt);
    if (!(await confirm('Write these files?', prompt))) return stop(session, plan);
  }
  if (session.io.signal?.aborted) {
    cleanup(plan);
    throw new Interrupted('nothing was written.');
  }
  return true;
}

function report(session: Session, answers: Answers, fixes: Set<Fix>, plan: InstallPlan, written: string[]): void {
  const { out } = session;
  const moved = plan.kind === 'upgrade' || plan.kind === 'downgrade';
  out(
    `\n${moved ? `Moved gateline ${plan.fromVersion} -> ${plan.version}` : `Installed gateline ${plan.version}`} in ${where(answers)}. Files written:`,
  );
  const core = `${answers.prefix}/core/`;
  // The core's many files fold into one line; a few (a repair, an upgrade's changes) are named.
  const coreCount = written.filter((p) => p.startsWith(core)).length;
  const fold = coreCount > 5;
  if (fold) out(`  ${core} (${coreCount} file(s) of the vendored core)`);
  for (const path of written.filter((p) => !fold || !p.startsWith(core))) out(`  ${path}`);
  for (const n of plan.notes) out(`Note: ${n}`);
  out(nextSteps(answers.prefix, plan.version));
  if (session.interactive) out(`\nTo repeat this without prompts:\n  ${repeatCommand(answers, session.flags.from, fixes)}`);
}

/**
 * What to run next. Every command works in the host offline: render and validate through the
 * vendored core's plain-JavaScript entry; doctor lives in this package, pinned to its version,
 * which npx fetches once and then finds in its cache.
 */
export function nextSteps(prefix: string, version: string): string {
  return [
    `\nNext: write your policy into ${prefix}/overlays/*.md, run \`node ${prefix}/core/src/gateline.mjs render\`, and commit.`,
    `Check this repository and its runners any time: npx -p create-gateline@${version} gateline doctor`,
  ].join('\n');
}

/** The user said no at a prompt: nothing was written, exit 0. */
function cancel(session: Session): number {
  cancelled(session.prompt);
  return 0;
}

/** The user said no to the plan: clean the staged core up, say that nothing was written. */
function stop(session: Session, plan: InstallPlan): false {
  cleanup(plan);
  cancelled(session.prompt);
  return false;
}

function where(answers: Answers): string {
  return answers.dir === '.' ? 'this repository' : answers.dir;
}

function describe(plan: InstallPlan): string {
  const lines = [
    `${plan.kind === 'install' ? 'Install' : plan.kind === 'reinstall' ? 'Repair' : plan.kind === 'upgrade' ? 'Upgrade' : 'Downgrade'} gateline ${plan.fromVersion && plan.fromVersion !== plan.version ? `${plan.fromVersion} -> ` : ''}${plan.version} (${plan.source.source.type === 'embedded' ? 'embedded core' : `${plan.source.source.repo} @ ${plan.source.source.commit.slice(0, 12)}`})`,
    `adapters: ${plan.adapters.join(', ')}; hook: ${plan.hookStyle}`,
    `${plan.writes.length} file(s) to write, ${plan.removes.length} to remove, ${plan.renders.length} agent file(s) to render:`,
    ...summarize(plan.writes.map((w) => w.path)),
    ...plan.removes.map((p) => `  remove ${p}`),
    ...plan.renders.map((s) => `  ${s.status === 'orphan' ? 'remove' : 'render'} ${s.path}`),
  ];
  return lines.join('\n');
}

/** Lists files, folding the many files of the vendored core into one line. */
function summarize(paths: string[]): string[] {
  const core = paths.filter((p) => /\/core\//.test(p));
  const rest = paths.filter((p) => !/\/core\//.test(p)).map((p) => `  write ${p}`);
  return core.length ? [`  write ${core.length} file(s) of the vendored core`, ...rest] : rest;
}

function repeatCommand(answers: Answers, from: string | undefined, fixes: Set<string>): string {
  const args = [answers.dir === '.' ? '' : answers.dir, '--yes', ...answers.adapters.map((a) => `--adapter ${a}`)];
  if (answers.prefix !== DEFAULT_PREFIX) args.push(`--prefix ${answers.prefix}`);
  if (answers.hook !== 'auto') args.push(`--hook ${answers.hook}`);
  if (from) args.push(`--from ${from}`);
  for (const fix of [...fixes].sort()) args.push(`--${fix}`);
  return `npm create gateline@latest -- ${args.filter(Boolean).join(' ')}`;
}
