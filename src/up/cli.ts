import { resolve } from 'node:path';
import { boundary, type Failure } from '../shared/boundary.ts';
import { parseFlags } from '../shared/flags.ts';
import { FrameworkError, formatProblem, Interrupted, UsageError } from '../shared/problem.ts';
import { paint, problemLines } from '../shared/report.ts';
import { PIPELINE } from './dispatch.ts';
import { freeze } from './frozen.ts';
import { type Lanes, prepareLanes } from './lanes.ts';
import { runPipeline } from './pipeline.ts';
import { type Preflight, preflight } from './preflight.ts';
import { openRecord, type RunRecord } from './record.ts';
import { StepError, type StepResult } from './step.ts';
import { costTable, type Ending, runSummary } from './summary.ts';
import { formatTable } from './table.ts';
import { watch } from './watch.ts';
import { loadWorkspace } from './workspace.ts';

// `gateline up`: the orchestrator. Installer side (it uses execa and yaml), so it is not part of
// the dependency-free core; it reads the core's manifests, roles and registry and checks the
// rendered files with the core's own planner.

export interface UpIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  cwd: string;
  /** The runners' environment (PATH finds them); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Aborted by Ctrl-C: the running runner is stopped, the record kept, exit 130. */
  signal?: AbortSignal;
}

const USAGE = `Usage: gateline up "<task>" --adapter NAME [--adapter NAME ...] [options]
       gateline up --plan --adapter NAME [--adapter NAME ...] [--json]

Runs planner -> implementer -> reviewer -> verifier headless, each on the runner it is bound to,
passing each role the reports before it. When the reviewer requests changes, the implementer's
session is continued (at most --rounds times). The verifier's verdict is the exit code.

Binding: each role goes to the first --adapter that runs it, preferring bindings where the
reviewer and verifier use another model vendor than the implementer (registry pins). With two
or more adapters a binding that breaks a pin is an error; with one it is a vendor-pin advisory.

Options:
  --adapter NAME      a runner to dispatch to (repeatable; earlier is preferred)
  --bind ROLE=NAME    force a role onto one of the --adapter runners (repeatable)
  --accept-unnarrowed NAME
                      run roles on NAME although it takes no agent file (Gemini CLI, Codex exec):
                      their tools are then the runner's defaults, not only the role's capabilities
  --plan              print the bindings and whether the run would start each lane (exit 1 when
                      it would refuse one, with the reasons); runs nothing
  --json              print the plan (or the run's summary) as one JSON object; any failure
                      prints {"ok": false, "problems": [{file, line?, message}]} instead
  --rounds N          at most N rounds of changes after the reviewer asks (default 2)
  --timeout S         stop a runner after S seconds (default 1800)
  --root DIR          start looking for the host (or checkout) in DIR
  --prefix P          the host's gateline folder (default .gateline)
  --verbose           show stack traces
  -h, --help          show this help

Runs are recorded under <prefix>/runs/<id>/ (ignored by git). No permission-bypassing flag is
ever passed to a runner. Exit codes: 0 the verifier says PASS (or --plan: every lane would run),
1 FAIL, a refused lane, a failed runner, a pin violation or a problem in the inputs (an unknown
--adapter included), 2 a usage error, 130 interrupted.`;

const OPTIONS = {
  adapter: { type: 'string', multiple: true },
  bind: { type: 'string', multiple: true },
  'accept-unnarrowed': { type: 'string', multiple: true },
  plan: { type: 'boolean' },
  json: { type: 'boolean' },
  rounds: { type: 'string' },
  timeout: { type: 'string' },
  root: { type: 'string' },
  prefix: { type: 'string' },
  verbose: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function run(argv: string[], io: UpIo): Promise<number> {
  const out = (text: string) => io.stdout.write(`${text}\n`);
  const log = (text: string) => io.stderr.write(`${text}\n`);
  // Known before the flags parse, so a usage error is JSON too when --json was asked for.
  let json = wantsJson(argv);
  let verbose = argv.includes('--verbose');
  let record: RunRecord | undefined;
  let lanes: Lanes | undefined;
  const steps: StepResult[] = [];
  /** Writes the run's summary to the record and, without --json, prints the cost table. Returns the summary: what --json prints. */
  const finish = (outcome: Ending) => {
    if (!record) return undefined;
    const summary = runSummary(record, steps, outcome);
    try {
      record.write('summary.json', summary);
    } catch (error) {
      // Said, not thrown: this runs in the error boundary too, and the run's own failure comes first.
      log(`gateline up: ${error instanceof FrameworkError ? error.problems.map(formatProblem).join('; ') : messageOf(error)}`);
    }
    if (!json && steps.length) out(`\n${costTable(summary.roles)}`);
    return summary;
  };
  try {
    const args = parse(argv);
    json = args.json ?? false;
    verbose = args.verbose ?? false;
    if (args.help) {
      out(USAGE);
      return 0;
    }
    const ws = loadWorkspace({
      start: args.root ? resolve(io.cwd, args.root) : io.cwd,
      prefix: args.prefix,
      adapters: args.adapters,
      forced: args.forced,
    });
    for (const advisory of ws.dispatch.advisories) log(paint('yellow', advisory, io.stderr));
    const accepted = args['accept-unnarrowed'] ?? [];
    // The plan and the run decide each lane with the same code: the plan shows what the run would refuse.
    const checked = preflight(ws, { accepted, env: io.env ?? process.env });
    if (args.plan) {
      if (json) {
        const { ok, lanes: bindings, notes, problems } = checked;
        const plan = {
          ok,
          mode: ws.ctx.mode,
          root: ws.ctx.root,
          adapters: args.adapters,
          bindings,
          advisories: ws.dispatch.advisories,
          notes,
        };
        out(JSON.stringify(ok ? plan : { ...plan, problems }));
      } else {
        for (const note of checked.notes) log(note);
        out(planTable(checked));
        if (!checked.ok)
          log([...problemLines(checked.problems, io.stderr), `gateline up would refuse ${refused(checked)}: nothing would run`].join('\n'));
      }
      return checked.ok ? 0 : 1;
    }
    if (io.signal?.aborted) throw new Interrupted('no runner had started');

    record = openRecord(ws.ctx.root, ws.prefix);
    if (!checked.ok) throw new FrameworkError(checked.problems);
    lanes = prepareLanes(ws, record, accepted);
    for (const note of lanes.notes) log(note);
    record.write('bindings.json', {
      id: record.id,
      task: args.task,
      adapters: args.adapters,
      rounds: args.rounds,
      timeoutSeconds: args.timeoutMs / 1000,
      bindings: ws.dispatch.bindings.map((b) => ({ ...b, how: lanes?.byRole.get(b.role)?.how })),
      advisories: ws.dispatch.advisories,
      notes: lanes.notes,
    });
    log(`gateline up: run ${record.id} (record: ${record.display}/)`);
    const readOnly = new Set(ws.roles.filter((r) => !r.capabilities.some((c) => c === 'edit' || c === 'write')).map((r) => r.name));
    const frozen = freeze(ws, lanes.byRole.values());
    const outcome = await runPipeline({
      watch: watch({ root: ws.ctx.root, frozen, readOnly, skip: [`${ws.prefix}/runs`], record }),
      task: args.task,
      lanes: lanes.byRole,
      rounds: args.rounds,
      step: { root: ws.ctx.root, env: io.env ?? process.env, timeoutMs: args.timeoutMs, signal: io.signal, record, registry: ws.registry },
      log,
      steps,
    });
    const summary = finish(outcome);
    if (json) out(JSON.stringify(summary));
    const verdict = `${outcome.verdict ? `VERDICT: ${outcome.verdict}` : 'no verdict'}: ${outcome.reason}`;
    if (!json) out(outcome.code === 0 ? verdict : paint('red', verdict, io.stdout));
    return outcome.code;
  } catch (error) {
    return boundary(error, io, {
      command: 'gateline up',
      json,
      verbose,
      signal: io.signal,
      interrupted: record ? `the runners were stopped; the run record is in ${record.display}/` : 'no runner had started',
      // Once a record exists it keeps how the run ended, and with --json the run's summary is the one object printed.
      finish: (failure) =>
        failure.code === 2
          ? undefined
          : finish({ code: failure.code, reason: messageOf(error), status: status(error, failure), problems: failure.problems }),
    });
  } finally {
    lanes?.cleanup();
  }
}

/** The run record's status for a failure: a failed step says how it failed. */
function status(error: unknown, failure: Failure): string {
  if (failure.kind === 'interrupted') return 'interrupted';
  return error instanceof StepError ? error.kind : 'error';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** True when --json is among the flags (before a `--`, after which everything is the task). */
function wantsJson(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).includes('--json');
}

function planTable(checked: Preflight): string {
  return formatTable(
    ['role', 'adapter', 'model', 'vendor', 'pin', 'run'],
    checked.lanes.map((b) => [b.role, b.adapter, b.model, b.vendor, b.pin, b.run]),
  );
}

function refused(checked: Preflight): string {
  const roles = checked.lanes.filter((l) => l.run === 'refused').map((l) => l.role);
  return `the ${roles.join(', ')} (${roles.length} of ${checked.lanes.length} lanes)`;
}

function flagsOf(argv: string[]) {
  return parseFlags({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
}

/** Parses and checks the flags; throws UsageError (exit 2) for anything wrong. */
function parse(argv: string[]) {
  const { values, positionals } = flagsOf(argv);
  const adapters = values.adapter ?? [];
  if (values.help) return { ...values, adapters, forced: {}, rounds: 2, timeoutMs: 0, task: '' };
  if (adapters.length === 0) throw new UsageError('no --adapter given: name at least one runner, e.g. --adapter claude-code');
  const twice = adapters.find((a, i) => adapters.indexOf(a) !== i);
  if (twice) throw new UsageError(`--adapter ${twice} is given twice`);
  const forced: Record<string, string> = {};
  for (const bind of values.bind ?? []) {
    const [role, adapter, extra] = bind.split('=');
    if (!role || !adapter || extra !== undefined) throw new UsageError(`--bind must be ROLE=ADAPTER, got '${bind}'`);
    if (!(PIPELINE as readonly string[]).includes(role))
      throw new UsageError(`--bind ${bind}: '${role}' is not a role (${PIPELINE.join(', ')})`);
    if (!adapters.includes(adapter))
      throw new UsageError(`--bind ${bind}: '${adapter}' is not one of the --adapter values (${adapters.join(', ')})`);
    if (forced[role]) throw new UsageError(`--bind ${role}=... is given twice`);
    forced[role] = adapter;
  }
  const rounds = values.rounds === undefined ? 2 : /^\d+$/.test(values.rounds) ? Number(values.rounds) : Number.NaN;
  if (!Number.isSafeInteger(rounds)) throw new UsageError(`--rounds must be a whole number, got '${values.rounds}'`);
  const timeout = values.timeout === undefined ? 1800 : Number(values.timeout);
  if (!(timeout > 0) || !Number.isFinite(timeout))
    throw new UsageError(`--timeout must be a positive number of seconds, got '${values.timeout}'`);
  if (positionals.length > 1) throw new UsageError(`expected one task, got ${positionals.length} arguments: quote the task`);
  const task = positionals[0]?.trim() ?? '';
  if (!values.plan && task === '') throw new UsageError('no task given: gateline up "<task>" --adapter NAME (or --plan)');
  return { ...values, adapters, forced, rounds, timeoutMs: Math.round(timeout * 1000), task };
}
