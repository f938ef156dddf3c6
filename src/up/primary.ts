// opencode refuses `opencode run --agent X` when X has `mode: subagent` (our rendered files do:
// they are meant to be delegated to) and silently falls back to its default agent, which allows
// every tool. Running `--agent <role>` against the rendered file would therefore run the role with
// no narrowing at all. Instead the orchestrator runs a primary copy of the rendered file, loaded
// from a temporary OPENCODE_CONFIG_DIR under another name. Exactly two frontmatter lines change:
// - `mode: subagent` -> `mode: primary`, so `run --agent` accepts it;
// - `name: <role>` -> `name: gateline-<role>`, because a frontmatter name overrides the file
//   name as the agent's id, and the project's subagent of the same id must not be the one picked.
// The permission map, model and body are byte-for-byte the rendered ones: nothing widens.

import { PRIMARY_PREFIX } from '../shared/agent-name.ts';

export { PRIMARY_PREFIX };

/**
 * True when the rendered file declares itself a subagent, so running it by name would fall back.
 * Decided from the file, not the runner's command name: `/usr/bin/env opencode` is opencode too.
 * Quoted spellings count as well; primaryCopy then refuses them rather than run the subagent.
 */
export function needsPrimaryCopy(rendered: string): boolean {
  const lines = rendered.split('\n');
  return lines.slice(1, Math.max(frontmatterEnd(lines), 1)).some((line) => /^mode:\s*(["']?)subagent\1\s*$/.test(line));
}

/** The primary copy of a rendered opencode agent file. Throws when the file does not have the expected lines. */
export function primaryCopy(rendered: string, role: string): string {
  const lines = rendered.split('\n');
  const end = frontmatterEnd(lines);
  if (end < 0) throw new Error(`the rendered opencode agent '${role}' has no frontmatter`);
  let named = false;
  for (let i = 1; i < end; i++) {
    if (lines[i] === `name: ${role}`) {
      lines[i] = `name: ${PRIMARY_PREFIX}${role}`;
      named = true;
    } else if (lines[i] === 'mode: subagent') lines[i] = 'mode: primary';
    else if (/^mode:/.test(lines[i] ?? '') && !/^mode: (primary|all)$/.test(lines[i] ?? '')) {
      throw new Error(`the rendered opencode agent '${role}' has '${lines[i]}'; expected subagent, primary or all`);
    }
  }
  if (!named) throw new Error(`the rendered opencode agent '${role}' has no 'name: ${role}' line`);
  return lines.join('\n');
}

/** The index of the line closing the frontmatter, or -1 when the file has none. */
function frontmatterEnd(lines: string[]): number {
  return lines[0] === '---' ? lines.indexOf('---', 1) : -1;
}
