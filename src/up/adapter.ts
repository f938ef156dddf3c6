import { basename, join } from 'node:path';
import { loadManifest, type Manifest, stringArray } from '../render/manifest.ts';
import { rules } from '../render/rules.ts';
import { FrameworkError, type Problem } from '../shared/problem.ts';
import { lineOfJsonKey } from '../shared/text.ts';

// The orchestrator's view of an adapter: the core's validated manifest plus the two blocks the
// renderer ignores, `model_vendors` and `headless`. The core checks only that they are objects;
// their shape is checked here, where they are used.

export interface Headless {
  command: string;
  args: string[];
  /** The JSON field holding the session id on each output line (opencode: sessionID). */
  sessionField?: string;
  /** How to continue a session: templated like `args`, with {session}. */
  resumeArgs?: string[];
}

/**
 * Which output the runner prints, picked by the command's name: a custom adapter running `claude`
 * reads like Claude Code. Only output parsing uses it: how a role is narrowed is decided from the
 * args and the rendered file (lanes.ts), never from a name that `/usr/bin/env` or a wrapper hides.
 */
export type RunnerKind = 'claude' | 'opencode' | 'gemini' | 'codex' | 'text';

export interface Adapter {
  name: string;
  manifest: Manifest;
  vendors: Record<string, string>;
  headless?: Headless;
  kind: RunnerKind;
}

const HEADLESS_KEYS = ['command', 'args', 'session_field', 'resume_args'];
const PLACEHOLDERS = ['{prompt}', '{role}', '{model}', '{session}'];

/** Loads the named adapters from `<coreRoot>/adapters`, in the order given. Throws FrameworkError listing every problem. */
export function loadAdapters(coreRoot: string, coreDisplay: string, names: string[]): Adapter[] {
  const problems: Problem[] = [];
  const display = [coreDisplay, 'adapters'].filter(Boolean).join('/');
  const adapters: Adapter[] = [];
  for (const name of names) {
    const manifest = loadManifest(join(coreRoot, 'adapters'), display, name, problems);
    if (!manifest) continue;
    const json = JSON.parse(manifest.text) as Record<string, unknown>;
    const bad = (key: string, message: string) => problems.push({ file: manifest.file, line: lineOfJsonKey(manifest.text, key), message });
    const vendors = (json.model_vendors ?? {}) as Record<string, unknown>;
    for (const [model, vendor] of Object.entries(vendors)) {
      if (typeof vendor !== 'string' || vendor.trim() === '') bad('model_vendors', `'${model}' must map to a vendor name`);
    }
    const headless =
      json.headless === undefined ? undefined : readHeadless(json.headless as Record<string, unknown>, { ...manifest, problems }, bad);
    const kind = runnerKind(headless?.command);
    adapters.push({ name, manifest, vendors: vendors as Record<string, string>, headless, kind });
  }
  if (problems.length) throw new FrameworkError(problems);
  return adapters;
}

function readHeadless(
  h: Record<string, unknown>,
  at: { file: string; text: string; problems: Problem[] },
  bad: (key: string, message: string) => void,
): Headless | undefined {
  const { file, text } = at;
  let failed = false;
  const fail = (key: string, message: string) => {
    failed = true;
    bad(key, message);
  };
  for (const key of Object.keys(h))
    if (!HEADLESS_KEYS.includes(key)) fail(key, `headless: unknown key '${key}' (known: ${HEADLESS_KEYS.join(', ')})`);
  if (typeof h.command !== 'string' || h.command.trim() === '') fail('headless', "headless: 'command' must be the runner's executable");
  const args = stringArray(h.args);
  if (!args) fail('headless', "headless: 'args' must be an array of strings");
  else if (!args.some((a) => a.includes('{prompt}')))
    fail('headless', "headless: 'args' must pass '{prompt}', or the role never gets its task");
  const resume = h.resume_args === undefined ? undefined : stringArray(h.resume_args);
  if (h.resume_args !== undefined && !resume) fail('resume_args', "headless: 'resume_args' must be an array of strings");
  if (resume && !resume.some((a) => a.includes('{session}'))) fail('resume_args', "headless: 'resume_args' must pass '{session}'");
  if (h.session_field !== undefined && typeof h.session_field !== 'string')
    fail('session_field', "headless: 'session_field' must be a string");
  for (const arg of [...(args ?? []), ...(resume ?? [])]) {
    for (const found of arg.match(/\{[a-z_]+\}/g) ?? []) {
      if (!PLACEHOLDERS.includes(found)) fail('headless', `headless: unknown placeholder '${found}' (known: ${PLACEHOLDERS.join(', ')})`);
    }
  }
  const refused = rules.sessionOnlyOnResume(file, text, args ?? []);
  if (refused.length) {
    failed = true;
    at.problems.push(...refused);
  }
  if (failed) return undefined;
  return {
    command: h.command as string,
    args: args as string[],
    sessionField: h.session_field as string | undefined,
    resumeArgs: resume,
  };
}

/**
 * True when the runner is handed the role's agent file: the args hold `--agent` then `{role}` as
 * two elements. Nothing looser counts: a `{role}` inside a prompt template (`(as {role}) {prompt}`)
 * names the role in text and narrows nothing, so such a lane must be treated as unnarrowed.
 */
export function takesAgentFile(args: string[]): boolean {
  return args.some((a, i) => a === '--agent' && args[i + 1] === '{role}');
}

function runnerKind(command: string | undefined): RunnerKind {
  const name = basename(command ?? '').replace(/\.(exe|cmd)$/i, '');
  return name === 'claude' || name === 'opencode' || name === 'gemini' || name === 'codex' ? name : 'text';
}
