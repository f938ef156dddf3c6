import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { execa } from 'execa';
import { type Document, parse, parseDocument, YAMLMap, YAMLSeq } from 'yaml';
import { detectHookStyle, type HookStyle } from './hook-style.ts';
import { HUSKY_HOOK, lefthookFile, PRE_COMMIT_CONFIG } from './layout.ts';
import { MANAGED_MARK, template } from './templates.ts';
import { unwired } from './wired.ts';
import { spliceAppend, spliceReplace, spliceSet } from './yaml-splice.ts';

// The pre-commit hook gateline adds to a host, in whichever hook manager it uses. The hook
// bodies are templates/hooks/*; this module decides where they go and merges them in.

/** A file the hook set-up writes: whole (`owned`, may be rewritten) or edited in place. */
export interface FileChange {
  path: string;
  content: string;
  mode?: number;
}

export interface HookPlan {
  style: Exclude<HookStyle, 'auto'>;
  changes: FileChange[];
  /** Files in the way that the installer did not write. */
  conflicts: string[];
  /** What the user still has to do, if anything. */
  notes: string[];
}

/** A hook gateline will not write or cannot merge; the message is a sentence for the user. */
export class HookError extends Error {
  override name = 'HookError';
}

/** The command every style runs: the vendored core's guard entry, which checks the Node version. */
export function validateCommand(prefix: string): string {
  return `node ${prefix}/core/src/gateline.mjs validate --staged`;
}

/** The files that make `style` (auto: the manager the repository uses) run validate before each commit. */
export async function planHook(root: string, style: HookStyle, prefix: string, packageRoot: string): Promise<HookPlan> {
  const chosen = style === 'auto' ? detectHookStyle(root) : style;
  const command = validateCommand(prefix);
  const plan: HookPlan = { style: chosen, changes: [], conflicts: [], notes: [] };
  const current = (path: string) => (existsSync(join(root, path)) ? readFileSync(join(root, path), 'utf8') : undefined);
  // The command sits in the YAML snippets as a quoted string: the prefix is checked to need no escaping.
  const snippet = (name: string) => parse(template(packageRoot, `hooks/${name}`, { command }));

  if (chosen === 'git') {
    const path = await gitHookPath(root);
    const content = template(packageRoot, 'hooks/git-pre-commit.sh', { command });
    const existing = current(path);
    if (existing !== undefined && existing !== content && !existing.includes(MANAGED_MARK)) plan.conflicts.push(path);
    plan.changes.push({ path, content, mode: 0o755 });
  } else if (chosen === 'husky') {
    const path = HUSKY_HOOK;
    const block = template(packageRoot, 'hooks/husky-block.sh', { command });
    const { begin, end } = markers(block);
    const text = current(path) ?? '';
    // A begin marker without its end is a block someone edited: where it stops is a guess.
    const unpaired = text.includes(begin) && !text.includes(end, text.indexOf(begin));
    if (unpaired) plan.conflicts.push(path);
    plan.changes.push({ path, content: withBlock(unpaired ? text.replace(`${begin}\n`, '') : text, block) });
    const wiring = await unwired(root, 'husky');
    if (wiring) plan.notes.push(`${wiring.problem}: ${wiring.fix}`);
  } else if (chosen === 'lefthook') {
    const path = lefthookFile(root);
    const wanted = snippet('lefthook.yml') as Record<string, unknown>;
    plan.changes.push({
      path,
      content: editYaml(
        path,
        current(path) ?? '',
        (doc) => setLeaves(doc, wanted),
        (text) => leaves(wanted).reduce<string | undefined>((t, [at, value]) => t && spliceSet(t, parseDocument(t), at, value), text),
      ),
    });
    const wiring = await unwired(root, 'lefthook');
    if (wiring) plan.notes.push(`${wiring.problem}: run ${wiring.fix}`);
  } else if (chosen === 'pre-commit') {
    const path = PRE_COMMIT_CONFIG;
    const local = (snippet('pre-commit-config.yaml') as { repos: [LocalRepo] }).repos[0];
    plan.changes.push({
      path,
      content: editYaml(
        path,
        current(path) ?? '',
        (doc) => withPreCommitHook(doc, local),
        (text, doc) => splicePreCommitHook(text, doc, local),
      ),
    });
    const wiring = await unwired(root, 'pre-commit');
    if (wiring) plan.notes.push(`${wiring.problem}: run ${wiring.fix}`);
  }
  return plan;
}

/** The first and last lines of a managed block: where it starts and stops in a shared file. */
function markers(block: string): { begin: string; end: string } {
  const lines = block.trimEnd().split('\n');
  return { begin: lines[0] ?? '', end: lines[lines.length - 1] ?? '' };
}

/** Adds (or refreshes) the managed block in a shell hook, leaving the user's lines alone. */
function withBlock(text: string, block: string): string {
  const { begin, end } = markers(block);
  const start = text.indexOf(begin);
  if (start >= 0) {
    const stop = text.indexOf(end, start);
    return `${text.slice(0, start)}${block}${text.slice(stop + end.length).replace(/^\n/, '')}`;
  }
  const base = text === '' ? '' : text.endsWith('\n') ? text : `${text}\n`;
  return `${base}${block}`;
}

/**
 * Edits a YAML config in place; a file it cannot edit is a HookError naming it. The text edit
 * (`splice`) keeps every other line byte for byte; it is used only when it parses to exactly what
 * `change` makes of the parsed document, else the document itself is written (comments kept).
 */
export function editYaml(
  path: string,
  text: string,
  change: (doc: Document) => void,
  splice: (text: string, doc: Document) => string | undefined,
): string {
  try {
    const doc = parseDocument(text);
    if (doc.errors.length) throw doc.errors[0];
    if (doc.contents !== null && !(doc.contents instanceof YAMLMap)) throw new Error('the top level is not a mapping');
    const spliced = splice(text, doc);
    change(doc);
    if (spliced !== undefined) {
      const again = parseDocument(spliced);
      if (!again.errors.length && isDeepStrictEqual(again.toJS(), doc.toJS())) return spliced;
    }
    return doc.toString();
  } catch (error) {
    throw new HookError(
      `${path}: cannot add the gateline hook (${(error as Error).message.split('\n')[0]}); fix the file, or choose another --hook style`,
    );
  }
}

/** Sets every scalar of `value` at its path in `doc`, so the host's other keys stay as they are. */
function setLeaves(doc: Document, value: Record<string, unknown>, path: string[] = []): void {
  for (const [key, child] of Object.entries(value)) {
    if (child !== null && typeof child === 'object' && !Array.isArray(child))
      setLeaves(doc, child as Record<string, unknown>, [...path, key]);
    else doc.setIn([...path, key], child);
  }
}

/** Every scalar of `value` with its path. */
function leaves(value: Record<string, unknown>, path: string[] = []): [string[], unknown][] {
  return Object.entries(value).flatMap(([key, child]) =>
    child !== null && typeof child === 'object' && !Array.isArray(child)
      ? leaves(child as Record<string, unknown>, [...path, key])
      : [[[...path, key], child] as [string[], unknown]],
  );
}

interface LocalRepo {
  repo: string;
  hooks: [{ id: string }];
}

/** Refreshes the hook with the snippet's id wherever it is, else adds the snippet's local repo. */
function withPreCommitHook(doc: Document, local: LocalRepo): void {
  const hook = local.hooks[0];
  if (doc.get('repos') === undefined) doc.set('repos', doc.createNode([]));
  if (!(doc.get('repos') instanceof YAMLSeq)) throw new Error("'repos' is not a list");
  const repos = doc.get('repos') as YAMLSeq;
  for (const repo of repos.items) {
    const hooks = repo instanceof YAMLMap ? repo.get('hooks') : undefined;
    if (!(hooks instanceof YAMLSeq)) continue;
    const index = hooks.items.findIndex((h) => h instanceof YAMLMap && h.get('id') === hook.id);
    if (index >= 0) {
      hooks.set(index, doc.createNode(hook));
      return;
    }
  }
  repos.add(doc.createNode(local));
}

/** `withPreCommitHook` as a text edit: the hook replaced where it is, else the local repo appended to `repos`. */
function splicePreCommitHook(text: string, doc: Document, local: LocalRepo): string | undefined {
  const repos = doc.get('repos', true);
  if (repos === undefined) return spliceSet(text, doc, ['repos'], [local]);
  if (!(repos instanceof YAMLSeq)) return undefined;
  for (const repo of repos.items) {
    const hooks = repo instanceof YAMLMap ? repo.get('hooks', true) : undefined;
    if (!(hooks instanceof YAMLSeq)) continue;
    const found = hooks.items.find((h) => h instanceof YAMLMap && h.get('id') === local.hooks[0].id);
    if (found) return spliceReplace(text, found as YAMLMap, local.hooks[0]);
  }
  return spliceAppend(text, repos, local);
}

/**
 * Where git runs the pre-commit hook (core.hooksPath and worktrees included), relative to the
 * root. Refused when that is outside the repository: a shared hooks folder serves other
 * repositories, whose commits would then run this one's check.
 */
export async function gitHookPath(root: string): Promise<string> {
  const { stdout } = await execa('git', ['rev-parse', '--git-path', 'hooks/pre-commit'], { cwd: root });
  const path = relative(root, resolve(root, stdout)).split('\\').join('/');
  if (path.startsWith('../') || isAbsolute(path)) {
    throw new HookError(
      `git runs hooks from ${resolve(root, stdout)}, outside this repository (core.hooksPath, or a linked worktree): ` +
        'gateline will not write a hook there. Use --hook husky, lefthook or pre-commit, or --hook none',
    );
  }
  return path;
}
