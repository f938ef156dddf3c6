import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { execa } from 'execa';
import { type Document, parseDocument, YAMLMap, YAMLSeq } from 'yaml';
import { InstallError } from './errors.ts';
import { MANAGED_MARK } from './templates.ts';

export const HOOK_STYLES = ['auto', 'git', 'husky', 'lefthook', 'pre-commit', 'none'] as const;
export type HookStyle = (typeof HOOK_STYLES)[number];

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

const LEFTHOOK_FILES = ['lefthook.yml', '.lefthook.yml', 'lefthook.yaml', '.lefthook.yaml'];
const BEGIN = '# >>> gateline (managed by create-gateline)';
const END = '# <<< gateline';

/** The hook manager the repository already uses, else the plain git hook. */
export function detectHookStyle(root: string): Exclude<HookStyle, 'auto' | 'none'> {
  if (existsSync(join(root, '.husky')) || dependsOn(root, 'husky')) return 'husky';
  if (LEFTHOOK_FILES.some((f) => existsSync(join(root, f))) || dependsOn(root, 'lefthook')) return 'lefthook';
  if (existsSync(join(root, '.pre-commit-config.yaml'))) return 'pre-commit';
  return 'git';
}

function dependsOn(root: string, name: string): boolean {
  try {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    return Boolean(pkg.dependencies?.[name] ?? pkg.devDependencies?.[name]);
  } catch {
    return false;
  }
}

/** The command every style runs: the vendored core's guard entry, which checks the Node version. */
export function validateCommand(prefix: string): string {
  return `node ${prefix}/core/src/hook.mjs validate`;
}

export async function planHook(root: string, style: HookStyle, prefix: string): Promise<HookPlan> {
  const chosen = style === 'auto' ? detectHookStyle(root) : style;
  const command = validateCommand(prefix);
  const plan: HookPlan = { style: chosen, changes: [], conflicts: [], notes: [] };
  const current = (path: string) => (existsSync(join(root, path)) ? readFileSync(join(root, path), 'utf8') : undefined);

  if (chosen === 'git') {
    const path = await gitHookPath(root);
    const content = [
      '#!/bin/sh',
      `# ${MANAGED_MARK}: runs gateline validate before each commit.`,
      'if ! command -v node >/dev/null 2>&1; then',
      '  echo "gateline: node is not on PATH; install Node 24 to commit here" >&2',
      '  exit 1',
      'fi',
      `exec ${command}`,
      '',
    ].join('\n');
    const existing = current(path);
    if (existing !== undefined && existing !== content && !existing.includes(MANAGED_MARK)) plan.conflicts.push(path);
    plan.changes.push({ path, content, mode: 0o755 });
  } else if (chosen === 'husky') {
    const path = '.husky/pre-commit';
    const text = current(path) ?? '';
    // A begin marker without its end is a block someone edited: where it stops is a guess.
    const unpaired = text.includes(BEGIN) && !text.includes(END, text.indexOf(BEGIN));
    if (unpaired) plan.conflicts.push(path);
    plan.changes.push({ path, content: withBlock(unpaired ? text.replace(`${BEGIN}\n`, '') : text, command) });
    if (!dependsOn(root, 'husky'))
      plan.notes.push('husky is not in package.json: install it (npm i -D husky && npx husky init) so .husky/pre-commit runs');
  } else if (chosen === 'lefthook') {
    const path = LEFTHOOK_FILES.find((f) => existsSync(join(root, f))) ?? 'lefthook.yml';
    const content = editYaml(path, current(path) ?? '', (doc) =>
      doc.setIn(['pre-commit', 'commands', 'gateline-validate', 'run'], command),
    );
    plan.changes.push({ path, content });
    plan.notes.push('run `npx lefthook install` once if lefthook has not installed its git hooks yet');
  } else if (chosen === 'pre-commit') {
    const path = '.pre-commit-config.yaml';
    plan.changes.push({ path, content: editYaml(path, current(path) ?? '', (doc) => withPreCommitHook(doc, command)) });
    plan.notes.push('run `pre-commit install` once if the pre-commit framework has not installed its git hook yet');
  }
  return plan;
}

/** Adds (or refreshes) the managed block in a shell hook, leaving the user's lines alone. */
function withBlock(text: string, command: string): string {
  const block = `${BEGIN}\n${command}\n${END}\n`;
  const start = text.indexOf(BEGIN);
  if (start >= 0) {
    const end = text.indexOf(END, start);
    return `${text.slice(0, start)}${block}${text.slice(end + END.length).replace(/^\n/, '')}`;
  }
  const base = text === '' ? '' : text.endsWith('\n') ? text : `${text}\n`;
  return `${base}${block}`;
}

/** Edits a YAML config in place (comments kept); a file it cannot edit is an InstallError naming it. */
function editYaml(path: string, text: string, change: (doc: Document) => void): string {
  try {
    const doc = parseDocument(text);
    if (doc.errors.length) throw doc.errors[0];
    if (doc.contents !== null && !(doc.contents instanceof YAMLMap)) throw new Error('the top level is not a mapping');
    change(doc);
    return doc.toString();
  } catch (error) {
    throw new InstallError(
      `${path}: cannot add the gateline hook (${(error as Error).message.split('\n')[0]}); fix the file, or choose another --hook style`,
    );
  }
}

function withPreCommitHook(doc: Document, entry: string): void {
  if (doc.get('repos') === undefined) doc.set('repos', doc.createNode([]));
  if (!(doc.get('repos') instanceof YAMLSeq)) throw new Error("'repos' is not a list");
  const repos = doc.get('repos') as YAMLSeq;
  const hook = {
    id: 'gateline-validate',
    name: 'gateline validate',
    entry,
    language: 'system',
    pass_filenames: false,
    always_run: true,
  };
  for (const repo of repos.items) {
    const hooks = repo instanceof YAMLMap ? repo.get('hooks') : undefined;
    if (!(hooks instanceof YAMLSeq)) continue;
    const index = hooks.items.findIndex((h) => h instanceof YAMLMap && h.get('id') === 'gateline-validate');
    if (index >= 0) {
      hooks.set(index, doc.createNode(hook));
      return;
    }
  }
  repos.add(doc.createNode({ repo: 'local', hooks: [hook] }));
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
    throw new InstallError(
      `git runs hooks from ${resolve(root, stdout)}, outside this repository (core.hooksPath, or a linked worktree): ` +
        'gateline will not write a hook there. Use --hook husky, lefthook or pre-commit, or --hook none',
    );
  }
  return path;
}
