// The one error boundary. Every entry point (gateline render and validate, create-gateline,
// gateline doctor, gateline up, the gateline bin's dispatch) ends in it, so a failure reads the
// same whichever command hit it. It returns the exit code; the entry point sets process.exitCode.
//
//   usage error    exit 2    the message and a hint to run --help
//   problems       exit 1    each as `file[:line]: message`
//   interrupted    exit 130  Ctrl-C: what was left behind
//   anything else  exit 1    "internal error: <message>", a line saying it is a bug; the stack with --verbose
//
// Under --json, stdout gets one object, `{ok: false, problems}`, instead of the prose on stderr.
import { FrameworkError, Interrupted, type Problem, UsageError } from './problem.ts';
import { problemLines } from './report.ts';

type Stream = NodeJS.WritableStream & { isTTY?: boolean };

export interface Failure {
  code: 1 | 2 | 130;
  kind: 'usage' | 'problems' | 'interrupted' | 'internal';
  /** What went wrong as problems: a failure without a file of its own is filed under the command. */
  problems: Problem[];
}

export interface BoundaryOptions {
  /** The command as typed ('gateline', 'gateline up', 'create-gateline'): names the --help hint and files a failure that has no file. */
  command: string;
  json?: boolean;
  verbose?: boolean;
  /** Aborted by Ctrl-C: then whatever the abort made fail, the command was interrupted. */
  signal?: AbortSignal;
  /** What an interruption through `signal` leaves behind, said after "interrupted: ". */
  interrupted?: string;
  /** Called with the failure after the prose; under --json, the object it returns is printed instead of `{ok: false, problems}`. */
  finish?: (failure: Failure) => object | undefined;
}

export function boundary(error: unknown, io: { stdout: Stream; stderr: Stream }, options: BoundaryOptions): number {
  const failure = classify(error, options);
  if (!options.json) io.stderr.write(`${prose(failure, options, io.stderr).join('\n')}\n`);
  const result = options.finish?.(failure);
  if (options.json) io.stdout.write(`${JSON.stringify(result ?? { ok: false, problems: failure.problems })}\n`);
  if (options.verbose && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
  return failure.code;
}

export function classify(error: unknown, options: Pick<BoundaryOptions, 'command' | 'signal' | 'interrupted'>): Failure {
  const filed = (message: string): Problem[] => [{ file: options.command, message }];
  if (error instanceof Interrupted) return { code: 130, kind: 'interrupted', problems: filed(`interrupted: ${error.message}`) };
  if (options.signal?.aborted)
    return { code: 130, kind: 'interrupted', problems: filed(`interrupted: ${options.interrupted ?? 'stopped'}`) };
  if (error instanceof UsageError) return { code: 2, kind: 'usage', problems: filed(error.message) };
  if (error instanceof FrameworkError) return { code: 1, kind: 'problems', problems: error.problems };
  return { code: 1, kind: 'internal', problems: filed(`internal error: ${error instanceof Error ? error.message : String(error)}`) };
}

function prose(failure: Failure, options: BoundaryOptions, stderr: Stream): string[] {
  const lines = problemLines(failure.problems, stderr);
  // 'gateline up' is part of gateline: a bug is reported against the program, not the subcommand.
  const program = options.command.split(' ')[0];
  if (failure.kind === 'usage') lines.push(`Run '${options.command} --help' for usage.`);
  if (failure.kind === 'internal')
    lines.push(
      options.verbose
        ? `This is a bug in ${program}; report it with the stack trace below.`
        : `This is a bug in ${program}; run again with --verbose for the stack trace and report it.`,
    );
  return lines;
}
