import { execa } from 'execa';
import { FrameworkError } from '../shared/problem.ts';
import type { Adapter } from './adapter.ts';
import { invocation } from './argv.ts';
import type { Binding } from './dispatch.ts';
import { runnerEnv } from './environment.ts';
import { assertArgvAllowed, PermissionBypassError } from './guard.ts';
import { type Meter, meter } from './meter.ts';
import { OutputError, type Parsed, parseOutput } from './output.ts';
import type { RunRecord } from './record.ts';
import type { Registry } from './registry.ts';

// One headless run of one role: argv from the headless block, the bypass guard, execa (no shell),
// then parse and meter. Everything lands in the run record before anything can fail, so a failed
// step can be read afterwards.

export interface StepSpec {
  /** The step's folder in the run record, e.g. '02-implementer'. */
  label: string;
  binding: Binding;
  adapter: Adapter;
  prompt: string;
  /** What {role} becomes: the role, or the name of its opencode primary copy. */
  agent: string;
  /** Continue this session instead of starting a new one. */
  session?: string;
  /** The role's pre-approvals for this runner (grants.ts). */
  grants?: string[];
  /** Extra environment for this runner (the primary copy's config folder, headless.config_dir_env). */
  env?: Record<string, string>;
}

export interface StepContext {
  root: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal?: AbortSignal;
  record: RunRecord;
  registry: Registry;
}

export interface StepResult {
  label: string;
  binding: Binding;
  parsed: Parsed;
  meter: Meter;
  resumed: boolean;
}

export type FailureKind =
  | 'missing'
  | 'crashed'
  | 'timed out'
  | 'unparseable'
  | 'runner error'
  | 'refused'
  | 'interrupted'
  | 'definitions changed'
  | 'tree changed';

/** A FrameworkError at the step's error.txt; kept as a class because its kind is the run record's status. */
export class StepError extends FrameworkError {
  override name = 'StepError';
  readonly kind: FailureKind;
  /** The step's error.txt in the run record, when the step got that far. */
  readonly file?: string;
  constructor(kind: FailureKind, message: string, file?: string) {
    super([{ file: file ?? 'gateline up', message }], message);
    this.kind = kind;
    this.file = file;
  }
}

export async function runStep(spec: StepSpec, ctx: StepContext): Promise<StepResult> {
  const { binding, adapter, label } = spec;
  const runner = `the runner '${adapter.headless?.command}' (adapter ${adapter.name})`;
  const where = `${binding.role} (step ${label})`;
  const fail = (kind: FailureKind, why: string): never => {
    const message = `${binding.role}: ${runner} ${why}. The run record is in ${ctx.record.display}/${label}/`;
    ctx.record.write(`${label}/error.txt`, `${kind}: ${message}\n`);
    throw new StepError(kind, message, `${ctx.record.display}/${label}/error.txt`);
  };

  const inv = invocation(adapter, {
    prompt: spec.prompt,
    role: spec.agent,
    model: binding.model,
    session: spec.session,
    grants: spec.grants,
  });
  ctx.record.write(`${label}/prompt.md`, spec.prompt);
  ctx.record.write(`${label}/command.json`, {
    command: inv.command,
    args: inv.args,
    resumed: inv.resumed,
    session: spec.session,
    env: spec.env ?? {},
    cwd: ctx.root,
  });
  try {
    assertArgvAllowed(inv.command, inv.args, where, {
      headless: adapter.headless ?? { flags: {}, positionals: [] },
      grants: spec.grants,
      vars: { prompt: spec.prompt, role: spec.agent, model: spec.binding.model, session: spec.session },
    });
  } catch (error) {
    if (error instanceof PermissionBypassError) fail('refused', `was not started: ${error.message}`);
    throw error;
  }
  if (ctx.signal?.aborted) fail('interrupted', 'was not started: interrupted');

  const result = await execa(inv.command, inv.args, {
    cwd: ctx.root,
    env: runnerEnv(ctx.env, adapter.headless, spec.env),
    extendEnv: false,
    timeout: ctx.timeoutMs,
    cancelSignal: ctx.signal,
    reject: false,
    // The runners read stdin into the prompt when it is open (opencode, gemini): close it.
    stdin: 'ignore',
    stripFinalNewline: false,
  });
  const stdout = typeof result.stdout === 'string' ? result.stdout : '';
  const stderr = typeof result.stderr === 'string' ? result.stderr : '';
  ctx.record.write(`${label}/stdout.txt`, stdout);
  ctx.record.write(`${label}/stderr.txt`, stderr);

  if (result.isCanceled || ctx.signal?.aborted) fail('interrupted', 'was stopped: interrupted (Ctrl-C)');
  if (result.timedOut) fail('timed out', `timed out after ${ctx.timeoutMs / 1000} s (--timeout) and was stopped`);
  if (result.code === 'ENOENT') fail('missing', 'was not found: install it, or put it on PATH');
  if (result.code === 'EACCES') fail('missing', 'is not executable: check its permissions');
  if (result.failed) {
    const how = result.exitCode !== undefined ? `exited with code ${result.exitCode}` : `was killed by ${result.signal ?? 'a signal'}`;
    fail('crashed', `${how}${cause(adapter, stdout, stderr)}`);
  }

  let parsed: Parsed;
  try {
    parsed = parseOutput(adapter.headless?.output ?? 'text', stdout, adapter.headless?.sessionField);
  } catch (error) {
    if (!(error instanceof OutputError)) throw error;
    return fail('unparseable', `printed output gateline cannot read (${error.message}); the raw output is in stdout.txt`);
  }
  const cost = meter(parsed, binding.model, ctx.registry);
  ctx.record.write(`${label}/result.json`, parsed);
  ctx.record.write(`${label}/cost.json`, cost);
  if (parsed.error) fail('runner error', `reported an error: ${parsed.error}`);
  return { label, binding, parsed, meter: cost, resumed: inv.resumed };
}

/**
 * Why a runner failed, in its own words: the error its JSON output reports ("Cannot connect to
 * API" is there, not on stderr, for Claude Code and opencode), then the last lines of stderr.
 */
function cause(adapter: Adapter, stdout: string, stderr: string): string {
  let own: string | undefined;
  try {
    own = parseOutput(adapter.headless?.output ?? 'text', stdout, adapter.headless?.sessionField).error;
  } catch {
    own = undefined; // no readable output: stderr is all there is
  }
  const lines = stderr.trim().split('\n').filter(Boolean).slice(-3);
  const tail = lines.length ? lines.join(' | ').slice(0, 400) : undefined;
  const parts = [own?.slice(0, 400), tail && own ? `stderr: ${tail}` : tail].filter(Boolean);
  return parts.length ? `: ${parts.join('; ')}` : '';
}
