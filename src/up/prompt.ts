// The prompt each role gets: the task and the latest report of every role that ran before it.
// Every prompt starts with a fixed header line, so no prompt argument can ever read as a flag
// to the runner (and the bypass guard never mistakes a prompt for one).

export interface Report {
  role: string;
  adapter: string;
  model: string;
  text: string;
}

export interface PromptInput {
  role: string;
  task: string;
  /** Latest report per role, in pipeline order. */
  reports: Report[];
  /** The role's instructions, for a runner that cannot be given an agent file (Gemini CLI). */
  instructions?: string;
  /** Why this run happens, when it is not the first (a round of changes). */
  note?: string;
}

export function composePrompt(input: PromptInput): string {
  const parts = [`gateline up: you are the ${input.role} in the pipeline planner -> implementer -> reviewer -> verifier.`];
  if (input.instructions) {
    parts.push(`# Your role's instructions (this runner takes no agent file, so they come here)\n\n${input.instructions}`);
  }
  if (input.note) parts.push(`# Why you run again\n\n${input.note}`);
  parts.push(`# Task\n\n${input.task}`);
  if (input.reports.length) {
    parts.push(
      ['# Reports so far', ...input.reports.map((r) => `## ${r.role} (${r.adapter}, ${r.model})\n\n${r.text || '(empty report)'}`)].join(
        '\n\n',
      ),
    );
  }
  return `${parts.join('\n\n')}\n`;
}

/** The message that continues the implementer's own session: it has the context, it needs the review. */
export function composeResume(review: Report, round: number, rounds: number): string {
  return [
    `gateline up: you are the implementer; the reviewer requested changes (round ${round} of ${rounds}).`,
    'Address every finding in the same working tree, run the checks again, and report in the same format as before.',
    `## reviewer (${review.adapter}, ${review.model})\n\n${review.text}`,
  ].join('\n\n');
}
