import type { Capability } from '../../shared/capabilities.ts';
import type { Problem } from '../../shared/problem.ts';

// The shape every rule shares: a named check that returns Problem[] tagged with its name.

/** What the manifest rules read: the raw JSON object and its text, for line numbers. */
export interface ManifestInput {
  file: string;
  text: string;
  json: Record<string, unknown>;
}

/** What the role rules read of a role. */
export interface RoleInput {
  name: string;
  file: string;
  capabilities: readonly Capability[];
}

/** What the role rules read of an adapter. */
export interface AdapterInput {
  adapter: string;
  file: string;
  toolMap: Record<string, string[]>;
  floor: Record<string, string>;
  /** Tool names the runner treats as one tool (Claude Code: Task is Agent), each alias -> its tool. */
  toolAliases?: Record<string, string>;
}

/** A rule's arguments: at most four (its wrapper passes four on, see `rule`). */
type Args = [unknown?, unknown?, unknown?, unknown?];
type Check<A extends Args> = (...args: A) => Problem[];
export type Rule<A extends Args> = Check<A> & { ruleName: string; summary: string };

export function rule<A extends Args>(ruleName: string, summary: string, check: Check<A>): Rule<A> {
  // Four parameters, not a rest array: rules run several times per planned file, and a call
  // through a rest array is several times slower until the code is optimized.
  const run = (a?: unknown, b?: unknown, c?: unknown, d?: unknown) => {
    const found = (check as unknown as (...four: Args) => Problem[])(a, b, c, d);
    // Most checks find nothing, once per planned file: no new array for that.
    return found.length ? found.map((p) => ({ ...p, rule: ruleName })) : found;
  };
  return Object.assign(run, { ruleName, summary });
}
