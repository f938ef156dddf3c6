// Every expected failure is a Problem value; the CLI is the one place that prints them.

export interface Problem {
  /** Path relative to the repository root, with forward slashes. */
  file: string;
  /** 1-based line, when the problem has one. */
  line?: number;
  message: string;
  /** The narrowing or containment rule that refused (render/rules.ts), when one did. */
  rule?: string;
}

/** Raised when inputs are wrong: exit 1, no stack trace (unless --verbose). */
export class FrameworkError extends Error {
  readonly problems: Problem[];
  constructor(problems: Problem[]) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'FrameworkError';
    this.problems = problems;
  }
}

/** Raised for an unknown command or flag: exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export function formatProblem(p: Problem): string {
  return `${p.file}${p.line ? `:${p.line}` : ''}: ${p.message}`;
}
