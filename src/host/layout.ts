import { existsSync } from 'node:fs';
import { join } from 'node:path';

// Where gateline's files live in a host repository outside <prefix>/: the installer writes
// them, the probe and doctor look for them.

/** The CI workflow that runs render --check and validate. */
export const WORKFLOW = '.github/workflows/gateline-render-check.yml';

export const HUSKY_HOOK = '.husky/pre-commit';

/** The names a lefthook config may have. */
export const LEFTHOOK_FILES = ['lefthook.yml', '.lefthook.yml', 'lefthook.yaml', '.lefthook.yaml'];

export const PRE_COMMIT_CONFIG = '.pre-commit-config.yaml';

/** The lefthook config the repository has, else the name to create. */
export function lefthookFile(root: string): string {
  return LEFTHOOK_FILES.find((f) => existsSync(join(root, f))) ?? 'lefthook.yml';
}

/** The lines gateline wants in the host's .gitignore. */
export function gitignoreLines(prefix: string): string[] {
  return [`/${prefix}/runs/`];
}
