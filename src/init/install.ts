import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Options as DegitOptions } from 'degit';
import { execa } from 'execa';
import semver from 'semver';
import type { HookStyle } from '../host/hook-style.ts';
import { type FileChange, HookError, type HookPlan, planHook } from '../host/hooks.ts';
import { gitignoreLines, WORKFLOW } from '../host/layout.ts';
import { PACKAGE_ROOT } from '../host/package.ts';
import { protections } from '../host/protect.ts';
import { MANAGED_MARK, template } from '../host/templates.ts';
import { listAdapters, loadManifest } from '../render/manifest.ts';
import { renderAll } from '../render/render.ts';
import { rules } from '../render/rules.ts';
import { discoveryFolders } from '../render/runner-view.ts';
import type { FileState } from '../render/state.ts';
import { hashTree } from '../shared/integrity.ts';
import { buildLock, LOCK_FILE, type Lock, readLock, stringifyLock } from '../shared/lock.ts';
import { checkPrefix, escapesThroughSymlink } from '../shared/paths.ts';
import { formatProblem, type Problem } from '../shared/problem.ts';
import { InstallError } from './errors.ts';
import { type CoreSource, degitSource, embeddedSource } from './source.ts';
import { Transaction } from './transaction.ts';
import { vendorCore } from './vendor.ts';

export interface InstallOptions {
  /** The host repository's root (absolute). */
  root: string;
  /** Adapters to select; default: those of the existing lock, else every shipped adapter. */
  adapters?: string[];
  prefix: string;
  hook: HookStyle;
  from?: string;
  force: boolean;
  /** Points degit's fetch and git client elsewhere (used with `from`). */
  degit?: DegitOptions;
  /** Package whose templates and embedded core are used (default: this package). */
  packageRoot?: string;
  /** Add a `gateline` script to the host's package.json. */
  packageScript?: boolean;
  /** Add the lines gateline needs to the host's .gitignore. */
  gitignore?: boolean;
}

export interface InstallPlan {
  options: InstallOptions;
  kind: 'install' | 'upgrade' | 'downgrade' | 'reinstall';
  /** Needs the user's yes (or --force): a major upgrade or a downgrade. */
  needsConfirmation?: string;
  fromVersion?: string;
  version: string;
  adapters: string[];
  hookStyle: string;
  writes: FileChange[];
  removes: string[];
  /** Rendered files the first render will write or remove. */
  renders: FileState[];
  notes: string[];
  source: CoreSource;
  stage: string;
}

/** A host file the install wants, with its bytes and (for the git hook) its mode. */
interface Wanted {
  content: string | Buffer;
  mode?: number;
}

/** What the install would make of the host, gathered step by step before anything is written. */
interface Draft {
  root: string;
  prefix: string;
  force: boolean;
  /** Every file the install wants, in the order it writes them. */
  desired: Map<string, Wanted>;
  /** Files in the way that the installer did not write. */
  conflicts: string[];
  removes: string[];
  /** Problems with the staged core that stop the install. */
  problems: Problem[];
}

/**
 * Works out everything an install or upgrade would change, without writing to the host.
 * Throws InstallError for anything that would stop it: not a git root, an unknown adapter,
 * a file in the way (unless `force`), a problem the first render would hit.
 */
export async function planInstall(options: InstallOptions): Promise<InstallPlan> {
  const { root, prefix } = options;
  await checkGitRoot(root);
  checkPrefixFlag(prefix);
  const lockProblems: Problem[] = [];
  const previous = readPreviousLock(root, prefix, lockProblems);
  const source = options.from ? await degitSource(options.from, options.degit) : embeddedSource(options.packageRoot);
  const stage = mkdtempSync(join(tmpdir(), 'gateline-stage-'));
  try {
    vendorCore(source.dir, stage);
    refusePrefixInDiscovery(prefix, stage);
    const adapters = chooseAdapters(stage, options.adapters ?? previous?.adapters);
    const packageRoot = options.packageRoot ?? PACKAGE_ROOT;
    const draft: Draft = { root, prefix, force: options.force, desired: new Map(), conflicts: [], removes: [], problems: [] };

    const lock = addCore(draft, stage, previous, { version: source.version, source: source.source, adapters });
    addOverlayStubs(draft, stage, adapters, packageRoot);
    addPackageScript(draft, options.packageScript ?? false);
    if (options.gitignore) addGitignoreLines(draft);
    addWorkflow(draft, packageRoot);
    const hook = await addHook(draft, options.hook, packageRoot);

    refuseLinksOut(draft);
    refuseConflicts(draft);
    const states = preflightRender(draft, stage, lock, adapters);
    const renders = states.filter((s) => s.status !== 'fresh');
    const rendered = states.filter((s) => s.status !== 'orphan').map((s) => s.path);
    const guard = protections(root, (path) => desiredText(draft, path), prefix, [...rendered, WORKFLOW].sort());
    for (const change of guard.changes) draft.desired.set(change.path, { content: change.content });
    refuseLinksOut(draft);
    const { kind, needsConfirmation } = compareVersions(previous?.version, source.version, lockProblems);
    return {
      options,
      kind,
      needsConfirmation,
      fromVersion: previous?.version,
      version: source.version,
      adapters,
      hookStyle: hook.style,
      writes: changedFiles(draft),
      removes: draft.removes,
      renders,
      notes: [...hook.notes, ...guard.notes],
      source,
      stage,
    };
  } catch (error) {
    rmSync(stage, { recursive: true, force: true });
    source.cleanup();
    throw error;
  }
}

function checkPrefixFlag(prefix: string): void {
  const problems: string[] = [];
  checkPrefix(prefix, (m) => problems.push(m));
  if (problems.length) throw new InstallError(`--prefix ${problems[0]}`);
}

/** The lock of an earlier install, if any; a lock that cannot be read adds to `problems`. */
function readPreviousLock(root: string, prefix: string, problems: Problem[]): Lock | undefined {
  const lockPath = join(prefix, LOCK_FILE);
  return existsSync(join(root, lockPath)) ? readLock(join(root, lockPath), lockPath, problems) : undefined;
}

/** The prefix may not be inside or above a folder where any adapter the core ships discovers agents. */
function refusePrefixInDiscovery(prefix: string, stage: string): void {
  const dir = join(stage, 'adapters');
  const manifests = listAdapters(dir).flatMap((name) => loadManifest(dir, 'adapters', name, []) ?? []);
  const refused = rules.prefixOutsideDiscovery(prefix, discoveryFolders(manifests), '--prefix');
  if (refused.length) throw new InstallError(`--prefix ${refused.map((p) => p.message).join('; ')}`);
}

/** The adapters asked for (default: every one the staged core ships), each checked against it. */
function chooseAdapters(stage: string, asked: string[] | undefined): string[] {
  const shipped = listAdapters(join(stage, 'adapters'));
  const adapters = [...new Set(asked ?? shipped)].sort();
  const unknown = adapters.filter((a) => !shipped.includes(a));
  if (unknown.length)
    throw new InstallError(`unknown adapter ${unknown.map((a) => `'${a}'`).join(', ')}: choose from ${shipped.join(', ')}`);
  if (adapters.length === 0) throw new InstallError(`no adapter selected: choose at least one of ${shipped.join(', ')}`);
  return adapters;
}

/**
 * The vendored core is exactly the staged tree, plus the lock that records it. Files in the
 * host's core that the old lock does not list were not written by the installer.
 */
function addCore(draft: Draft, stage: string, previous: Lock | undefined, about: Pick<Lock, 'version' | 'source' | 'adapters'>): Lock {
  const files = hashTree(stage);
  const coreDir = `${draft.prefix}/core`;
  for (const path of Object.keys(files)) draft.desired.set(`${coreDir}/${path}`, { content: readFileSync(join(stage, path)) });
  if (existsSync(join(draft.root, coreDir))) {
    for (const path of Object.keys(hashTree(join(draft.root, coreDir)))) {
      if (Object.hasOwn(files, path)) continue;
      if (!(previous && Object.hasOwn(previous.files, path)) && !draft.force) draft.conflicts.push(`${coreDir}/${path}`);
      draft.removes.push(`${coreDir}/${path}`);
    }
    if (!previous) {
      for (const path of Object.keys(files)) {
        const current = readHostFile(draft.root, `${coreDir}/${path}`);
        if (current && !current.equals(readFileSync(join(stage, path)))) draft.conflicts.push(`${coreDir}/${path}`);
      }
    }
  }
  const lock = buildLock(files, { version: about.version, source: about.source, core: 'core', adapters: about.adapters });
  draft.desired.set(join(draft.prefix, LOCK_FILE), { content: stringifyLock(lock) });
  return lock;
}

/** Overlay stubs for _all and every role the selected adapters render; existing ones are the host's. */
function addOverlayStubs(draft: Draft, stage: string, adapters: string[], packageRoot: string): void {
  const { prefix } = draft;
  const roles = new Set<string>();
  for (const adapter of adapters)
    for (const role of loadManifest(join(stage, 'adapters'), 'adapters', adapter, draft.problems)?.roles ?? []) roles.add(role);
  for (const name of ['_all', ...[...roles].sort()]) {
    const path = `${prefix}/overlays/${name}.md`;
    if (readHostFile(draft.root, path) !== undefined) continue;
    const text =
      name === '_all'
        ? template(packageRoot, 'overlay-all.md', { prefix })
        : template(packageRoot, 'overlay-role.md', { prefix, role: name });
    draft.desired.set(path, { content: text });
  }
}

/** The `gateline` script: the plain-JavaScript entry, which says "needs Node 24" on an older Node. */
const scriptCommand = (prefix: string) => `node ${prefix}/core/src/gateline.mjs`;

function addPackageScript(draft: Draft, add: boolean): void {
  const text = readHostFile(draft.root, 'package.json')?.toString('utf8');
  if (text === undefined) return;
  // Earlier versions wrote the .ts entry, which crashes with a stack on an old Node: refreshed in place.
  const old = JSON.stringify(`node ${draft.prefix}/core/src/main.ts`);
  if (text.includes(`"gateline": ${old}`))
    draft.desired.set('package.json', {
      content: text.replace(`"gateline": ${old}`, `"gateline": ${JSON.stringify(scriptCommand(draft.prefix))}`),
    });
  else if (add) draft.desired.set('package.json', { content: withScript(text, scriptCommand(draft.prefix)) });
}

function addGitignoreLines(draft: Draft): void {
  const text = readHostFile(draft.root, '.gitignore')?.toString('utf8') ?? '';
  const missing = gitignoreLines(draft.prefix).filter((line) => !text.split(/\r?\n/).includes(line));
  if (missing.length)
    draft.desired.set('.gitignore', { content: `${text}${text && !text.endsWith('\n') ? '\n' : ''}# gateline\n${missing.join('\n')}\n` });
}

/** The render-check workflow; one that lost its managed mark is the host's own. */
function addWorkflow(draft: Draft, packageRoot: string): void {
  const text = template(packageRoot, 'gateline-render-check.yml', { prefix: draft.prefix });
  const current = readHostFile(draft.root, WORKFLOW)?.toString('utf8');
  if (current !== undefined && current !== text && !current.includes(MANAGED_MARK)) draft.conflicts.push(WORKFLOW);
  draft.desired.set(WORKFLOW, { content: text });
}

/** The pre-commit hook; a hook it cannot set up stops the install with the hook's own sentence. */
async function addHook(draft: Draft, style: HookStyle, packageRoot: string): Promise<HookPlan> {
  let hook: HookPlan;
  try {
    hook = await planHook(draft.root, style, draft.prefix, packageRoot);
  } catch (error) {
    if (error instanceof HookError) throw new InstallError(error.message);
    throw error;
  }
  draft.conflicts.push(...hook.conflicts);
  for (const change of hook.changes) draft.desired.set(change.path, { content: change.content, mode: change.mode });
  return hook;
}

/**
 * Nothing the installer writes may leave the repository through a symlink (a linked prefix,
 * .github or .husky folder), not even with --force.
 */
function refuseLinksOut(draft: Draft): void {
  for (const path of [...draft.desired.keys(), ...draft.removes]) {
    const leak = escapesThroughSymlink(draft.root, path);
    if (leak) throw new InstallError(`${leak}: create-gateline writes only inside the repository; replace the link with a folder`);
  }
}

function refuseConflicts(draft: Draft): void {
  if (draft.conflicts.length === 0 || draft.force) return;
  throw new InstallError(
    `these files are in the way and were not written by create-gateline:\n${draft.conflicts.map((c) => `  ${c}`).join('\n')}\n` +
      'Move them away, or re-run with --force to overwrite them.',
  );
}

/** The first render, checked with the staged core and the host's overlays: every file it plans, with its status. */
function preflightRender(draft: Draft, stage: string, lock: Lock, adapters: string[]): FileState[] {
  const { root, prefix } = draft;
  const preflight = renderAll(
    { mode: 'host', root, coreRoot: stage, coreDisplay: `${prefix}/core`, prefix, lock, selected: adapters },
    { check: true },
  );
  const problems = [...draft.problems, ...preflight.problems];
  if (problems.length) throw new InstallError(`the first render would fail:\n${problems.map((p) => `  ${formatProblem(p)}`).join('\n')}`);
  return preflight.states;
}

/** A file's text as the install will leave it: what it wants written, else what is on disk. */
function desiredText(draft: Draft, path: string): string | undefined {
  const want = draft.desired.get(path);
  return want ? want.content.toString() : readHostFile(draft.root, path)?.toString('utf8');
}

/** The wanted files whose bytes or mode differ from the disk: what the install writes. */
function changedFiles(draft: Draft): FileChange[] {
  return [...draft.desired]
    .filter(([path, want]) => {
      const current = readHostFile(draft.root, path);
      return (
        current === undefined ||
        !current.equals(Buffer.from(want.content)) ||
        (want.mode !== undefined && !isMode(join(draft.root, path), want.mode))
      );
    })
    .map(([path, want]) => ({ path, content: want.content as string, mode: want.mode }));
}

export function isNoop(plan: InstallPlan): boolean {
  return plan.writes.length === 0 && plan.removes.length === 0 && plan.renders.length === 0;
}

/**
 * Writes the plan through one transaction, then runs the first render with the vendored core's
 * own CLI. Any failure, or an abort through `signal`, rolls every change back.
 */
export async function applyInstall(
  plan: InstallPlan,
  { signal, onStep }: { signal?: AbortSignal; onStep?: (step: string) => void } = {},
): Promise<string[]> {
  const { root, prefix } = plan.options;
  const tx = new Transaction(root, signal);
  try {
    onStep?.(`vendoring gateline ${plan.version} into ${prefix}/core`);
    for (const path of plan.removes) tx.remove(path);
    for (const change of plan.writes) tx.write(change.path, change.content, change.mode);
    onStep?.('rendering the agent files');
    // The render runs in a child process: its folders and files are journaled here first, so a
    // failure or Ctrl-C part-way through leaves no new folder behind either.
    for (const state of plan.renders) {
      tx.ensureDir(dirname(state.path));
      tx.remember(state.path);
    }
    signal?.throwIfAborted();
    const main = join(root, prefix, 'core', 'src', 'main.ts');
    const run = await execa(process.execPath, [main, 'render', '--root', root, '--prefix', prefix, '--json'], {
      cwd: root,
      reject: false,
      cancelSignal: signal,
      env: { NO_COLOR: '1' },
    });
    signal?.throwIfAborted();
    let result: { ok?: boolean; problems?: Problem[]; written?: string[]; removed?: string[] } = {};
    try {
      result = JSON.parse(String(run.stdout));
    } catch {
      throw new InstallError(`the first render did not run: ${String(run.stderr || run.shortMessage).trim()}`);
    }
    if (!result.ok)
      throw new InstallError(`the first render failed:\n${(result.problems ?? []).map((p) => `  ${formatProblem(p)}`).join('\n')}`);
    return [
      ...tx.paths.filter((p) => !plan.renders.some((s) => s.path === p)),
      ...(result.written ?? []),
      ...(result.removed ?? []).map((p) => `${p} (removed)`),
    ];
  } catch (error) {
    const stuck = tx.rollback();
    if (stuck.length) throw new InstallError(`${reason(error)}; and these could not be restored, check them by hand: ${stuck.join(', ')}`);
    if (error instanceof InstallError || signal?.aborted) throw error;
    throw new InstallError(`${reason(error)}; every change was rolled back`);
  } finally {
    cleanup(plan);
  }
}

/** A host file's bytes, undefined when absent; a folder or unreadable file in its place is an InstallError. */
function readHostFile(root: string, path: string): Buffer | undefined {
  try {
    return readFileSync(join(root, path));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new InstallError(
      `${path} ${code === 'EISDIR' ? 'is a folder where create-gateline needs a file' : `cannot be read (${code})`}: move it away`,
    );
  }
}

/** package.json with a `gateline` script added, keeping its indentation and key order. */
function withScript(text: string, command: string): string {
  let pkg: { scripts?: Record<string, string> };
  try {
    pkg = JSON.parse(text);
  } catch (error) {
    throw new InstallError(`package.json is not valid JSON (${(error as Error).message}): fix it, or leave out --package-script`);
  }
  if (pkg.scripts?.gateline) return text;
  pkg.scripts = { ...pkg.scripts, gateline: command };
  const indent = /^([ \t]+)"/m.exec(text)?.[1] ?? '  ';
  return `${JSON.stringify(pkg, null, indent)}\n`;
}

/** An error as one line: a file system error names its path relative to nothing but itself. */
function reason(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  if (e.code && e.path) return `could not write ${e.path} (${e.code})`;
  return e.message ?? String(error);
}

export function cleanup(plan: InstallPlan): void {
  rmSync(plan.stage, { recursive: true, force: true });
  plan.source.cleanup();
}

function compareVersions(
  previous: string | undefined,
  next: string,
  lockProblems: Problem[],
): Pick<InstallPlan, 'kind' | 'needsConfirmation'> {
  if (previous === undefined) {
    if (lockProblems.length)
      return {
        kind: 'install',
        needsConfirmation: `the existing lock cannot be read (${formatProblem(lockProblems[0] as Problem)}); it will be replaced`,
      };
    return { kind: 'install' };
  }
  if (!semver.valid(previous) || !semver.valid(next))
    return { kind: 'upgrade', needsConfirmation: `version ${previous} -> ${next} cannot be compared` };
  if (semver.eq(previous, next)) return { kind: 'reinstall' };
  if (semver.lt(next, previous)) return { kind: 'downgrade', needsConfirmation: `this downgrades gateline from ${previous} to ${next}` };
  if (semver.major(next) !== semver.major(previous))
    return { kind: 'upgrade', needsConfirmation: `this is a major upgrade, ${previous} -> ${next}: read the release notes first` };
  return { kind: 'upgrade' };
}

async function checkGitRoot(root: string): Promise<void> {
  if (!existsSync(root)) throw new InstallError(`${root} does not exist: create it and run git init there, or pass another directory`);
  const run = await execa('git', ['rev-parse', '--show-toplevel'], { cwd: root, reject: false });
  if (run.exitCode !== 0)
    throw new InstallError(`${root} is not a git repository: run git init there first (gateline hooks and CI live in git)`);
  if (realpathSync(String(run.stdout)) !== realpathSync(root)) {
    throw new InstallError(`gateline installs at the root of a git repository, and ${root} is inside ${run.stdout}: run it there`);
  }
}

function isMode(path: string, mode: number): boolean {
  return existsSync(path) && (statSync(path).mode & 0o777) === mode;
}
