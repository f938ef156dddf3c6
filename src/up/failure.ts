import { FrameworkError, type Problem, UsageError } from '../shared/problem.ts';
import { paint, problemLines } from '../shared/report.ts';
import { VendorPinError } from './dispatch.ts';
import { PermissionBypassError } from './guard.ts';
import { StepError } from './step.ts';

// Every way `gateline up` can fail, as one value: the exit code, the run record's status, the
// problems (what --json prints, so a script gets `file`, `line` and `message` rather than prose),
// and the prose for a human on stderr.

export interface Failure {
  code: 1 | 2 | 130;
  status: string;
  problems: Problem[];
  prose: string;
}

type Stream = NodeJS.WritableStream & { isTTY?: boolean };

const ME = 'gateline up';

export function describeFailure(error: unknown, stderr: Stream, verbose = false): Failure {
  const red = (text: string) => `${paint('red', `${ME}:`, stderr)} ${text}`;
  if (error instanceof StepError) {
    const interrupted = error.kind === 'interrupted';
    return {
      code: interrupted ? 130 : 1,
      status: interrupted ? 'interrupted' : error.kind,
      problems: [{ file: error.file ?? ME, message: error.message }],
      prose: red(interrupted ? `interrupted: the runners were stopped. ${error.message}` : error.message),
    };
  }
  if (error instanceof UsageError) {
    return {
      code: 2,
      status: 'usage',
      problems: [{ file: ME, message: error.message }],
      prose: `${ME}: ${error.message}\nRun 'gateline up --help' for usage.`,
    };
  }
  if (error instanceof FrameworkError)
    return { code: 1, status: 'error', problems: error.problems, prose: problemLines(error.problems, stderr).join('\n') };
  if (error instanceof VendorPinError) return { code: 1, status: 'error', problems: [error.problem], prose: red(error.message) };
  if (error instanceof PermissionBypassError) {
    return { code: 1, status: 'error', problems: [{ ...(error.at ?? { file: ME }), message: error.message }], prose: red(error.message) };
  }
  const message = (error as Error)?.message ?? String(error);
  return {
    code: 1,
    status: 'error',
    problems: [{ file: ME, message: `internal error: ${message}` }],
    prose: `${ME}: internal error: ${verbose ? ((error as Error)?.stack ?? message) : message}`,
  };
}
