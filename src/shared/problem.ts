// Every expected failure is a Problem value; the error boundary (boundary.ts) is the one place
// that prints them. Three kinds of error reach it, each with its exit code.

export interface Problem {
  /** Path relative to the repository root, with forward slashes. */
  file: string;
  /** 1-based line, when the problem has one. */
  line?: number;
  message: string;
  /** The narrowing or containment rule that refused (render/rules.ts), when one did. */
  rule?: string;
}

/** Raised when inputs are wrong: exit 1, each problem printed as `file[:line]: message`. */
export class FrameworkError extends Error {
  readonly problems: Problem[];
  /** `message` defaults to the problems, one a line; a subclass may keep its own prose. */
  constructor(problems: Problem[], message = problems.map(formatProblem).join('\n')) {
    super(message);
    this.name = 'FrameworkError';
    this.problems = problems;
  }
}

/** Raised for an unknown command or flag, or a flag's bad value: exit 2, with a hint to run --help. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Raised when the user stopped the command (Ctrl-C): exit 130. The message says what was left behind. */
export class Interrupted extends Error {
  override name = 'Interrupted';
}

export function formatProblem(p: Problem): string {
  return `${p.file}${p.line ? `:${p.line}` : ''}: ${p.message}`;
}
