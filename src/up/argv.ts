import type { Adapter } from './adapter.ts';

// The argv of one run, from the adapter's headless block. Arguments go to execa as an array,
// never through a shell, so a prompt is one argument whatever it holds.

export interface Vars {
  prompt: string;
  /** The agent name the runner is given: the role, or the opencode primary copy's name. */
  role: string;
  model: string;
  /** Set to continue a session. */
  session?: string;
  /** What the role is pre-approved for (grants.ts), appended after the template's arguments. */
  grants?: string[];
}

export interface Invocation {
  command: string;
  args: string[];
  /** True when the args continue a session (resume), false for a fresh run. */
  resumed: boolean;
}

// Flags a resume must keep. opencode's `run --session` without --agent continues on the default
// agent, which allows every tool: a resumed implementer would run wider than its file says.
const CARRIED = [
  ['--agent', '{role}'],
  ['--model', '{model}'],
] as const;

/** The resume template, or undefined when the runner cannot continue a session (a fresh run replaces it). */
export function resumeTemplate(adapter: Adapter): string[] | undefined {
  const headless = adapter.headless;
  if (!headless) return undefined;
  const resume = headless.resumeArgs;
  if (!resume) return undefined;
  const out = [...resume];
  for (const [flag, value] of CARRIED) {
    const inArgs = headless.args.some((a, i) => a === flag && headless.args[i + 1] === value);
    if (!inArgs || out.some((a) => a.includes(value))) continue;
    const at = out.indexOf('{prompt}');
    out.splice(at < 0 ? out.length : at, 0, flag, value);
  }
  return out;
}

/** Substitutes {prompt}, {role}, {model} and {session} in one pass, so text inside a prompt is never substituted again. */
export function invocation(adapter: Adapter, vars: Vars): Invocation {
  const headless = adapter.headless;
  if (!headless) throw new Error(`adapter ${adapter.name} has no headless block`);
  const resume = vars.session === undefined ? undefined : resumeTemplate(adapter);
  const template = resume ?? headless.args;
  const values: Record<string, string> = { prompt: vars.prompt, role: vars.role, model: vars.model, session: vars.session ?? '' };
  const args = template.map((arg) => arg.replace(/\{(prompt|role|model|session)\}/g, (_, key: string) => values[key] ?? ''));
  return { command: headless.command, args: [...args, ...(vars.grants ?? [])], resumed: resume !== undefined };
}
