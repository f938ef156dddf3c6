import type { Problem } from '../../shared/problem.ts';
import { rule } from './rule.ts';

// The runner's view: what a runner discovers as an agent in its folders, beside what gateline
// renders there. A file gateline did not render may not take a rendered role's name, and the
// vendored core may not sit where a runner looks for agents.

/** A hand-written agent file and the names it claims, as the runner reads them. */
export interface ForeignAgent {
  path: string;
  /** Where it was read: the file, or a link's target inside the repository. */
  real?: string;
  /** The runner's name in messages, and its discovery folder. */
  runner: string;
  dir: string;
  claims: { name: string; folded: string; line?: number; source: string }[];
  /** Why gateline cannot tell its name (or read it at all), and where. */
  unreadable?: { line?: number; why: string };
}

/** A name gateline uses, folded, with what uses it. */
export type Reserved = Map<string, { name: string; owner: string; paths: string[] }>;

export const discoveryRules = {
  agentNamesReadable: rule(
    'agent-names-readable',
    'a file a runner discovers as an agent is one gateline can read: a regular file inside the repository, readable, its name written plainly',
    (agents: ForeignAgent[]): Problem[] =>
      agents.flatMap((a): Problem[] =>
        a.unreadable
          ? [
              {
                file: a.path,
                line: a.unreadable.line,
                message:
                  `${a.runner} may load this file as an agent, and gateline cannot tell its name: ${a.unreadable.why}. ` +
                  `Write its name as a plain 'name: <value>' line (a regular, readable file inside the repository), or move it out of ${a.dir}`,
              },
            ]
          : [],
      ),
  ),

  renderedNamesUnclaimed: rule(
    'rendered-names-unclaimed',
    "a file gateline did not render may not claim, in a runner's agent folders, the name of a rendered role or of the copy gateline up runs",
    (agents: ForeignAgent[], reserved: Reserved): Problem[] =>
      agents.flatMap((a) =>
        a.claims.flatMap((claim): Problem[] => {
          const taken = reserved.get(claim.folded);
          if (!taken) return [];
          const top = a.dir.split('/')[0];
          const path = taken.paths.find((p) => p.split('/')[0] === top) ?? taken.paths[0];
          const owner = path ? `${taken.owner} (${path})` : taken.owner;
          const as = claim.name === taken.name ? `'${claim.name}'` : `'${claim.name}' (read as '${taken.name}')`;
          return [
            {
              file: a.path,
              line: claim.line,
              message:
                `claims the agent name ${as} through its ${claim.source}, which is ${owner}; ${a.runner} would load one in place of the other. ` +
                'Give it a name of its own, or move it out of ' +
                a.dir,
            },
          ];
        }),
      ),
  ),

  prefixOutsideDiscovery: rule(
    'prefix-outside-discovery',
    "the host prefix is neither inside nor above a folder where a shipped adapter's runner discovers agents",
    (prefix: string, folders: { dir: string; runner: string; nested: boolean }[], file: string): Problem[] => {
      // Compared without case: on a case-insensitive disk `.Claude/agents` is `.claude/agents`.
      const parts = prefix.toLowerCase().replace(/\/+$/, '').split('/');
      for (const { dir, runner, nested } of folders) {
        const d = dir.toLowerCase().split('/');
        // A nested runner reads the folder below any subfolder too (`tools/.claude/agents`).
        const starts = nested ? parts.map((_, i) => i) : [0];
        const within = starts.some((s) => d.every((p, i) => parts[s + i] === p));
        const above = starts.some((s) => parts.slice(s).every((p, i) => d[i] === p));
        if (within || above)
          return [
            {
              file,
              message:
                `'${prefix}' is ${within ? 'inside' : 'above'} ${dir}, where ${runner} discovers agents: ` +
                (within
                  ? 'it would load the vendored roles and overlays as agents, with every tool. '
                  : "the vendored core would live in the runner's own configuration folder. ") +
                "Choose a prefix outside the runners' folders, such as .gateline",
            },
          ];
      }
      return [];
    },
  ),
};
