import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LEFTHOOK_FILES, PRE_COMMIT_CONFIG } from './layout.ts';

export const HOOK_STYLES = ['auto', 'git', 'husky', 'lefthook', 'pre-commit', 'none'] as const;
export type HookStyle = (typeof HOOK_STYLES)[number];

/** The hook manager the repository already uses, else the plain git hook. */
export function detectHookStyle(root: string): Exclude<HookStyle, 'auto' | 'none'> {
  if (existsSync(join(root, '.husky')) || dependsOn(root, 'husky')) return 'husky';
  if (LEFTHOOK_FILES.some((f) => existsSync(join(root, f))) || dependsOn(root, 'lefthook')) return 'lefthook';
  if (existsSync(join(root, PRE_COMMIT_CONFIG))) return 'pre-commit';
  return 'git';
}

/** The host's package.json lists `name` as a dependency or devDependency. */
export function dependsOn(root: string, name: string): boolean {
  try {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    return Boolean(pkg.dependencies?.[name] ?? pkg.devDependencies?.[name]);
  } catch {
    return false;
  }
}
