import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import * as p from '@clack/prompts';
import type { HookStyle } from '../host/hook-style.ts';

// The only module that talks to clack. Streams are injectable, so tests drive it with keys.

export interface PromptIo {
  input?: Readable;
  output?: Writable;
}

export interface Answers {
  dir: string;
  adapters: string[];
  prefix: string;
  hook: HookStyle;
}

/** Asks what the flags did not say. Returns undefined when the user cancels (Ctrl-C, Esc). */
export async function ask(
  given: Partial<Answers>,
  /** What to offer, worked out for the directory once it is known. */
  choicesFor: (dir: string) => { adapters: string[]; selected: string[]; detectedHook: string },
  io: PromptIo,
): Promise<Answers | undefined> {
  const dir = given.dir ?? (await askDir(process.cwd(), io));
  if (dir === undefined) return undefined;
  const choices = choicesFor(dir);
  const adapters =
    given.adapters ??
    (await p.multiselect({
      message: 'Which runners should get agent files?',
      options: choices.adapters.map((a) => ({ value: a, label: a })),
      initialValues: choices.selected,
      required: true,
      ...io,
    }));
  if (p.isCancel(adapters)) return undefined;
  const prefix =
    given.prefix ??
    (await p.text({
      message: 'Folder for the vendored core, lock and overlays?',
      placeholder: '.gateline',
      defaultValue: '.gateline',
      ...io,
    }));
  if (p.isCancel(prefix)) return undefined;
  const hook =
    given.hook ??
    (await p.select<HookStyle>({
      message: 'Pre-commit hook that runs gateline validate?',
      options: [
        { value: 'auto', label: 'auto', hint: `use what the repository has: ${choices.detectedHook}` },
        { value: 'git', label: 'plain git hook' },
        { value: 'husky', label: 'husky' },
        { value: 'lefthook', label: 'lefthook' },
        { value: 'pre-commit', label: 'pre-commit framework' },
        { value: 'none', label: 'none' },
      ],
      initialValue: 'auto',
      ...io,
    }));
  if (p.isCancel(hook)) return undefined;
  return { dir, adapters, prefix, hook };
}

/** The repository folder, which must exist (relative to `cwd`); undefined when cancelled. */
export async function askDir(cwd: string, io: PromptIo): Promise<string | undefined> {
  const dir = await p.text({
    message: 'Where is the repository?',
    placeholder: '.',
    defaultValue: '.',
    validate: (value) => {
      const path = resolve(cwd, value || '.');
      if (!existsSync(path)) return `${path} does not exist: create it first, or type another folder`;
      if (!statSync(path).isDirectory()) return `${path} is not a folder`;
      return undefined;
    },
    ...io,
  });
  return p.isCancel(dir) ? undefined : dir;
}

export function intro(io: PromptIo): void {
  p.intro('create-gateline', io);
}

export async function confirm(message: string, io: PromptIo, initialValue = true): Promise<boolean> {
  const answer = await p.confirm({ message, initialValue, ...io });
  return answer === true;
}

export function note(message: string, title: string, io: PromptIo): void {
  p.note(message, title, io);
}

export function outro(message: string, io: PromptIo): void {
  p.outro(message, io);
}

export function cancelled(io: PromptIo): void {
  p.cancel('Cancelled: nothing was written.', io);
}
