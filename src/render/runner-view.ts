import { foldName, PRIMARY_PREFIX } from '../shared/agent-name.ts';
import type { Problem } from '../shared/problem.ts';
import { type Claims, frontmatterNames, tomlNames } from './agent-names.ts';
import { discoverAgents, nestedBases, readHead, trackedAgentPaths } from './discovery.ts';
import type { Manifest } from './manifest.ts';
import type { ForeignAgent, Reserved } from './rules/discovery.ts';
import { rules } from './rules.ts';
import type { AgentFolders } from './runner.ts';

// `validate` through each runner's eyes: every file the selected adapters' runners discover as
// an agent that gateline did not render, with the names it claims, judged against every name
// gateline renders or `gateline up` runs.

/**
 * Every agent file the manifests' runners discover that is not the runner's own rendered file (or
 * a link to it), with its claims. Another runner's rendered file counts: this runner reads it as
 * hand-written. `skip` holds paths validate reports otherwise (orphans).
 */
export function foreignAgents(root: string, manifests: Manifest[], skip: Set<string> = new Set()): ForeignAgent[] {
  const out: ForeignAgent[] = [];
  // One git run lists the nested agent folders of every runner (a git process costs milliseconds of the hook).
  const listed = trackedAgentPaths(
    root,
    manifests.flatMap((m) => (m.runner ? [m.runner.agents] : [])),
  );
  for (const manifest of manifests) {
    const runner = manifest.runner;
    if (!runner) continue;
    const rendered = new Set([...skip, ...manifest.roles.map((role) => renderedPath(manifest, role))]);
    const found = discoverAgents(root, runner.agents);
    for (const base of nestedBases(runner.agents, listed)) {
      const below = discoverAgents(root, runner.agents, base);
      found.files.push(...below.files);
      found.refused.push(...below.refused);
    }
    for (const r of found.refused) out.push({ path: r.path, runner: runner.title, dir: r.dir, claims: [], unreadable: { why: r.message } });
    for (const file of found.files) {
      if (rendered.has(file.path) || rendered.has(file.realPath)) continue;
      const agent: ForeignAgent = { path: file.path, real: file.real, runner: runner.title, dir: file.dir, claims: [] };
      const read = readHead(file.real);
      const claims: Claims =
        'error' in read ? { names: [], unreadable: { line: 0, why: `it cannot be read (${read.error})` } } : namesOf(read, runner.agents);
      for (const source of runner.agents.name) {
        if (source === 'path') agent.claims.push({ name: file.pathName, folded: foldName(file.pathName), source: 'file path' });
        else
          for (const c of claims.names)
            agent.claims.push({ ...c, folded: foldName(c.name), source: `${source === 'toml' ? 'TOML' : 'frontmatter'} name` });
      }
      if (claims.unreadable) agent.unreadable = { line: claims.unreadable.line || undefined, why: claims.unreadable.why };
      out.push(agent);
    }
  }
  return out;
}

function namesOf(read: { text: string; whole: boolean }, agents: AgentFolders): Claims {
  if (agents.name.includes('toml')) return tomlNames(read.text, read.whole);
  if (agents.name.includes('frontmatter')) return frontmatterNames(read.text, read.whole);
  return { names: [] };
}

/** The names gateline uses: each rendered role's, and the primary copy's `gateline up` runs. */
export function reservedNames(manifests: Manifest[]): Reserved {
  const reserved: Reserved = new Map();
  for (const manifest of manifests) {
    for (const role of manifest.roles) {
      const path = renderedPath(manifest, role);
      const primary = `${PRIMARY_PREFIX}${role}`;
      const own = reserved.get(foldName(role)) ?? { name: role, owner: `the rendered ${role}`, paths: [] };
      own.paths.push(path);
      reserved.set(foldName(role), own);
      reserved.set(foldName(primary), { name: primary, owner: `the name gateline up runs the ${role} under`, paths: [] });
    }
  }
  return reserved;
}

export function renderedPath(manifest: Manifest, role: string): string {
  return `${manifest.outputDir}/${manifest.filename.replaceAll('{role}', role)}`;
}

/** The runner's-view problems of a repository whose selected adapters are `manifests`. */
export function runnerView(root: string, manifests: Manifest[], skip: Set<string>): Problem[] {
  const foreign = foreignAgents(root, manifests, skip);
  return [...rules.agentNamesReadable(foreign), ...rules.renderedNamesUnclaimed(foreign, reservedNames(manifests))];
}

/** Every folder where a manifest's runner discovers agents, for the prefix rule. */
export function discoveryFolders(manifests: Manifest[]): { dir: string; runner: string; nested: boolean }[] {
  return manifests.flatMap((m) => {
    const runner = m.runner;
    return runner ? runner.agents.dirs.map(({ dir }) => ({ dir, runner: runner.title, nested: runner.agents.nested })) : [];
  });
}
