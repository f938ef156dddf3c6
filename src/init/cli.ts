import { join, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { parseArgs, styleText } from 'node:util';
import type { Options as DegitOptions } from 'degit';
import { detectHookStyle, HOOK_STYLES, type HookStyle } from '../host/hook-style.ts';
import { PACKAGE_ROOT } from '../host/package.ts';
import { inspect, probe, runnerCommands } from '../probe/probe.ts';
import { listAdapters } from '../render/manifest.ts';
import { DEFAULT_PREFIX } from '../shared/context.ts';
import { LOCK_FILE, readLock } from '../shared/lock.ts';
import { InstallError } from './errors.ts';
import { agree, gitInit, undoGitInit } from './fixes.ts';
import { applyInstall, cleanup, type InstallPlan, isNoop, planInstall } from './install.ts';
import { type Answers, ask, cancelled, confirm, intro, note, outro } from './prompts.ts';
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
cancelled at a prompt), 1 an error (nothing written), 2 a usage error, 130 interrupted while
writing (everything rolled back).`;

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

export async function run(argv: string[], io: CliIo): Promise<number> {
  const out = (text: string) => io.stdout.write(`${text}\n`);
  const err = (text: string) => io.stderr.write(`${text}\n`);
  const packageRoot = io.packageRoot ?? PACKAGE_ROOT;
  let values: ReturnType<typeof parse>['values'];
  let positionals: string[];
  try {
    ({ values, positionals } = parse(argv));
    if (positionals.length > 1) throw new Error(`expected one directory, got ${positionals.join(' ')}`);
    if (values.hook !== undefined && !(HOOK_STYLES as readonly string[]).includes(values.hook)) {
      throw new Error(`--hook must be one of ${HOOK_STYLES.join(', ')}`);
    }
  } catch (error) {
    err(`create-gateline: ${(error as Error).message}\nRun 'create-gateline --help' for usage.`);
    return 2;
  }
  if (values.help || values.version) {
    out(values.help ? USAGE : readVersion(packageRoot));
    return 0;
  }

  const interactive = io.interactive && !values.yes;
  const prompt = { input: io.input, output: io.stdout };
  const env = io.env ?? process.env;
  const shipped = listAdapters(join(packageRoot, 'adapters'));
  const commands = runnerCommands(join(packageRoot, 'adapters'));

  // Look before asking: what the machine and the repository have.
  const firstRoot = resolve(io.cwd, positionals[0] ?? '.');
  const found = probe(await inspect(firstRoot, commands, values.prefix ?? DEFAULT_PREFIX, env));
  const summary = found.findings.map((f) => `${f.ok ? '+' : '-'} ${f.message}${f.ok || !f.fix ? '' : `\n    ${f.fix}`}`).join('\n');
  if (interactive) {
    intro(prompt);
    note(summary, 'What I found', prompt);
  } else out(summary);
  const preselect = (root: string) => {
    // A broken lock preselects nothing; the install that follows reports it.
    const prefix = values.prefix ?? DEFAULT_PREFIX;
    const locked = readLock(join(root, prefix, LOCK_FILE), LOCK_FILE, [])?.adapters.filter((a) => shipped.includes(a));
    if (locked?.length) return locked;
    return found.installed.length ? found.installed : shipped;
  };

  let answers: Answers = {
    dir: positionals[0] ?? '.',
    adapters: values.adapter ?? [],
    prefix: values.prefix ?? DEFAULT_PREFIX,
    hook: (values.hook as HookStyle | undefined) ?? 'auto',
  };
  if (interactive) {
    const given: Partial<Answers> = {
      dir: positionals[0],
      adapters: values.adapter,
      prefix: values.prefix,
      hook: values.hook as HookStyle | undefined,
    };
    const choicesFor = (dir: string) => {
      const root = resolve(io.cwd, dir);
      return { adapters: shipped, selected: preselect(root), detectedHook: detectHookStyle(root) };
    };
    const asked = await ask(given, choicesFor, prompt);
    if (!asked) {
      cancelled(prompt);
      return 0;
    }
    answers = asked;
  } else if (!values.adapter) {
    answers.adapters = preselect(firstRoot);
  }

  const root = resolve(io.cwd, answers.dir);
  const fixable = root === firstRoot ? found : probe(await inspect(root, commands, answers.prefix, env));
  const fixes = await agree(fixable.findings, {
    interactive,
    prompt,
    flags: { 'git-init': values['git-init'], 'package-script': values['package-script'], gitignore: values.gitignore },
  });
  if (fixes === undefined) {
    cancelled(prompt);
    return 0;
  }
  let madeGit = false;
  try {
    if (fixes.has('git-init')) {
      if (values['dry-run']) {
        out('--dry-run: would run git init first; nothing was written.');
        return 0;
      }
      await gitInit(root);
      madeGit = true;
    }
    const plan = await planInstall({
      root,
      adapters: answers.adapters.length ? answers.adapters : undefined,
      prefix: answers.prefix,
      hook: answers.hook,
      from: values.from,
      force: values.force ?? false,
      degit: io.degit,
      packageRoot,
      packageScript: fixes.has('package-script'),
      gitignore: fixes.has('gitignore'),
    });
    if (plan.needsConfirmation && !values.force) {
      if (!interactive) throw new InstallError(`${plan.needsConfirmation}. Re-run with --force to go ahead.`);
      if (!(await confirm(`${plan.needsConfirmation}. Go ahead?`, prompt))) return stop(plan, prompt);
    }
    if (isNoop(plan)) {
      cleanup(plan);
      const done = `gateline ${plan.version} is already installed in ${answers.dir === '.' ? 'this repository' : answers.dir} and up to date: nothing to change.`;
      if (interactive) outro(done, prompt);
      else out(done);
      return 0;
    }
    const summary = describe(plan);
    if (values['dry-run']) {
      cleanup(plan);
      out(`${summary}\n\n--dry-run: nothing was written.`);
      return 0;
    }
    if (interactive) {
      note(summary, 'About to change', prompt);
      if (!(await confirm('Write these files?', prompt))) return stop(plan, prompt);
    }
    const written = await applyInstall(plan, { signal: io.signal, onStep: interactive ? undefined : (s) => out(`- ${s}`) });
    out(
      `\n${plan.kind === 'upgrade' || plan.kind === 'downgrade' ? `Moved gateline ${plan.fromVersion} -> ${plan.version}` : `Installed gateline ${plan.version}`} in ${answers.dir === '.' ? 'this repository' : answers.dir}. Files written:`,
    );
    for (const path of written) out(`  ${path}`);
    for (const n of plan.notes) out(`Note: ${n}`);
    out(
      `\nNext: write your policy into ${answers.prefix}/overlays/*.md, run \`npx gateline render\` (or node ${answers.prefix}/core/src/main.ts render), and commit.`,
    );
    if (interactive) out(`\nTo repeat this without prompts:\n  ${repeatCommand(answers, values.from, fixes)}`);
    return 0;
  } catch (error) {
    if (madeGit) undoGitInit(root);
    if (io.signal?.aborted) {
      err('create-gateline: interrupted; every change was rolled back, the repository is as it was.');
      return 130;
    }
    if (error instanceof InstallError) {
      err(`${styleText('red', 'create-gateline:', { stream: io.stderr })} ${error.message}`);
      return 1;
    }
    err(`create-gateline: internal error: ${(error as Error).message ?? String(error)}`);
    err(
      values.verbose
        ? String((error as Error).stack)
        : 'This is a bug in create-gateline: run again with --verbose for the stack trace, and report it.',
    );
    return 1;
  }
}

/** The user said no: clean the staged core up, say that nothing was written, exit 0. */
function stop(plan: InstallPlan, prompt: { output: Writable }): number {
  cleanup(plan);
  cancelled(prompt);
  return 0;
}

function parse(argv: string[]) {
  return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
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
