import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Finding, Fix } from '../probe/probe.ts';
import { confirm, type PromptIo } from './prompts.ts';

// The fixes create-gateline may make before installing, each only with consent: a yes at the
// prompt on a TTY, or its flag without one. A refused `git init` stops the install: gateline's
// hook and CI live in git.

const QUESTIONS: Record<Fix, string> = {
  'git-init': 'This folder is not a git repository. Run git init here?',
  'package-script': 'Add a "gateline" script to package.json (npm run gateline -- render)?',
  gitignore: 'Add the lines gateline needs to .gitignore?',
};

/** The fixes agreed to; undefined when the user refused one the install cannot go without. */
export async function agree(
  findings: Finding[],
  { interactive, prompt, flags }: { interactive: boolean; prompt: PromptIo; flags: Partial<Record<Fix, boolean>> },
): Promise<Set<Fix> | undefined> {
  const agreed = new Set<Fix>();
  for (const finding of findings) {
    const fix = finding.autofix;
    if (!fix || finding.ok) continue;
    const yes = flags[fix] ?? (interactive ? await confirm(QUESTIONS[fix], prompt) : false);
    if (yes) agreed.add(fix);
    else if (fix === 'git-init' && interactive) return undefined;
  }
  return agreed;
}

export async function gitInit(root: string): Promise<void> {
  await execa('git', ['init', '-q'], { cwd: root });
}

/** Removes the repository `gitInit` made, when the install it was for did not happen. */
export function undoGitInit(root: string): void {
  rmSync(join(root, '.git'), { recursive: true, force: true });
}
