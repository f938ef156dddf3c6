import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { frontmatterLines } from '../render/agent-names.ts';
import { readHead } from '../render/discovery.ts';
import type { Manifest } from '../render/manifest.ts';
import type { AgentFolders } from '../render/runner.ts';
import { foreignAgents } from '../render/runner-view.ts';
import type { Finding } from './probe.ts';

// `gateline doctor` lists the agents the selected runners load that gateline did not render,
// with the tools each grants as the runner reads its file: gateline narrows only its own.

/** One line per unmanaged agent: where, which runner, its name and what it grants. */
export function unmanagedAgents(root: string, manifests: Manifest[]): string[] {
  return foreignAgents(root, manifests).map((agent) => {
    const manifest = manifests.find((m) => m.runner?.title === agent.runner);
    const agents = manifest?.runner?.agents;
    const name = agent.claims.find((c) => c.source !== 'file path')?.name ?? agent.claims[0]?.name;
    const named = name === undefined ? '' : `, name '${name}'`;
    const grants =
      agent.unreadable || !agents ? 'unknown: gateline cannot read it' : toolsOf(agent.real ?? `${root}/${agent.path}`, agents);
    return `${agent.path} (${agent.runner}${named}): ${grants}`;
  });
}

export function unmanagedFinding(lines: string[]): Finding {
  if (lines.length === 0) return { id: 'unmanaged-agents', ok: true, message: 'the runners load no agents besides the rendered ones' };
  return {
    id: 'unmanaged-agents',
    ok: true,
    message: `the runners also load ${lines.length} agent(s) gateline does not render or narrow:\n${lines.map((l) => `      ${l}`).join('\n')}`,
  };
}

/** What the file's tools key grants, parsed with a YAML or TOML parser as the runner parses it. */
function toolsOf(path: string, agents: AgentFolders): string {
  const tools = agents.tools;
  if (!tools) return 'tools unknown (the manifest does not say where this runner lists them)';
  const read = readHead(path);
  if ('error' in read) return `unknown: it cannot be read (${read.error})`;
  let data: unknown;
  try {
    if (agents.name.includes('toml')) data = parseToml(read.text);
    else {
      const fm = frontmatterLines(read.text, read.whole);
      if (fm && 'lines' in fm) data = parseYaml(fm.lines.map((l) => l.text).join('\n'));
    }
  } catch {
    return 'unknown: its frontmatter or TOML does not parse (the runner skips it or fails)';
  }
  const fields = typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
  const value = fields[tools.key];
  if (!Object.hasOwn(fields, tools.key))
    return tools.missing === 'all'
      ? `all tools (no '${tools.key}' key: the runner's default is every tool)`
      : `no tools (no '${tools.key}' key)`;
  return `${tools.key}: ${JSON.stringify(value)}`;
}
