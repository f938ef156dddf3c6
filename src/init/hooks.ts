import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { execa } from 'execa';
import { parseDocument, YAMLMap, YAMLSeq } from 'yaml';
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
    const { stdout } = await execa('git', ['rev-parse', '--git-path', 'hooks/pre-commit'], { cwd: root });
    const path = relative(root, join(root, stdout)).split('\\').join('/');
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
    plan.changes.push({ path, content: withBlock(current(path) ?? '', command) });
    if (!dependsOn(root, 'husky'))
      plan.notes.push('husky is not in package.json: install it (npm i -D husky && npx husky init) so .husky/pre-commit runs');
  } else if (chosen === 'lefthook') {
    const path = LEFTHOOK_FILES.find((f) => existsSync(join(root, f))) ?? 'lefthook.yml';
    const doc = parseDocument(current(path) ?? '');
    doc.setIn(['pre-commit', 'commands', 'gateline-validate', 'run'], command);
    plan.changes.push({ path, content: doc.toString() });
    plan.notes.push('run `npx lefthook install` once if lefthook has not installed its git hooks yet');
  } else if (chosen === 'pre-commit') {
    const path = '.pre-commit-config.yaml';
    plan.changes.push({ path, content: withPreCommitHook(current(path) ?? '', command) });
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

function withPreCommitHook(text: string, entry: string): string {
  const doc = parseDocument(text);
  if (!(doc.get('repos') instanceof YAMLSeq)) doc.set('repos', doc.createNode([]));
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
      return doc.toString();
    }
  }
  repos.add(doc.createNode({ repo: 'local', hooks: [hook] }));
  return doc.toString();
}
