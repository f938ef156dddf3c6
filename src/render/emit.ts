import { header } from './header.ts';
import type { Manifest } from './manifest.ts';
import { type Overlay, splices } from './overlay.ts';
import type { Role } from './role.ts';
import { emitToml } from './toml.ts';
import { yamlScalar } from './yaml.ts';

// One interpreter for every runner: the manifest's tools_style picks how tools are written.

export interface Agent {
  role: Role;
  manifest: Manifest;
  model: string;
  tools: readonly string[];
  overlays: Overlay[];
  /** Set in a host: the header then points to the overlay and the vendored core's command. */
  host?: { prefix: string; coreDisplay: string };
}

/** Markdown with frontmatter, or TOML when the manifest's filename ends in .toml (Codex). */
export function emitAgent(agent: Agent): string {
  return agent.manifest.filename.endsWith('.toml') ? emitToml(agent) : emitMarkdown(agent);
}

function emitMarkdown(agent: Agent): string {
  const { role, manifest } = agent;
  const frontmatter = `---\n${nameLines(role)}\n${frontmatterRest(manifest, agent.tools, role.commands, agent.model)}\n---\n`;
  let text = `${frontmatter}<!-- ${header(role, agent.host)} -->\n\n${role.body}\n`;
  for (const splice of splices(agent.overlays)) text += `\n${splice}\n`;
  return text;
}

// A role's files for every adapter share its name and description lines: quoted once, not per adapter.
let last: { name: string; dispatch: string; lines: string } | undefined;
function nameLines(role: { name: string; dispatch: string }): string {
  if (!last || role.name !== last.name || role.dispatch !== last.dispatch) {
    const { name, dispatch } = role;
    last = { name, dispatch, lines: `name: ${yamlScalar(name)}\ndescription: ${yamlScalar(dispatch)}` };
  }
  return last.lines;
}

// The frontmatter after the description is a function of the manifest, the tools, the command
// list and the model alone, and roles share few such combinations. toolsFor hands every role with
// the same capabilities the same tools array, so without a command list each manifest writes it
// once per tools array and model; a role's own command list is written for it each time.
const rests = new WeakMap<Manifest, WeakMap<readonly string[], Map<string, string>>>();
function frontmatterRest(manifest: Manifest, tools: readonly string[], commands: string[] | undefined, model: string): string {
  if (commands) return writeRest(manifest, tools, commands, model);
  let byTools = rests.get(manifest);
  if (!byTools) {
    byTools = new WeakMap();
    rests.set(manifest, byTools);
  }
  let byModel = byTools.get(tools);
  if (!byModel) {
    byModel = new Map();
    byTools.set(tools, byModel);
  }
  let rest = byModel.get(model);
  if (rest === undefined) {
    rest = writeRest(manifest, tools, undefined, model);
    byModel.set(model, rest);
  }
  return rest;
}

function writeRest(manifest: Manifest, tools: readonly string[], commands: string[] | undefined, model: string): string {
  const lines =
    manifest.toolsStyle === 'permission-map' ? permissionLines(manifest, tools, commands) : toolLines(tools, manifest.toolsStyle);
  lines.push(`model: ${yamlScalar(model)}`);
  for (const [name, value] of Object.entries(manifest.extraFrontmatter)) lines.push(`${yamlScalar(name)}: ${yamlScalar(value)}`);
  return lines.join('\n');
}

function toolLines(tools: readonly string[], style: Manifest['toolsStyle']): string[] {
  switch (style) {
    case 'csv':
      // An absent or bare `tools:` means "every tool" in the runners: always write the list.
      return [tools.length ? `tools: ${yamlScalar(tools.join(', '))}` : 'tools: []'];
    case 'yaml-list':
      return tools.length ? ['tools:', ...tools.map((t) => `  - ${yamlScalar(t)}`)] : ['tools: []'];
    case 'permission-map':
    case 'codex-sandbox':
      throw new Error(`${style} is not a tool list`);
  }
}

/**
 * opencode's permission map: the last matching rule wins, so each deny-all comes first. A shell
 * permission of a role that lists commands allows only those (then denies redirects and the like);
 * a permission with manifest denies keeps them after its allow (secret files stay unreadable).
 */
function permissionLines(manifest: Manifest, tools: readonly string[], commands: string[] | undefined): string[] {
  const shellTools = manifest.toolMap.shell ?? [];
  const lines = ['permission:', '  "*": deny'];
  for (const tool of tools) {
    const shell = manifest.shellCommands;
    if (commands && shell && shellTools.includes(tool)) {
      const allow = commands.flatMap((command) => shell.allow.map((p) => p.replaceAll('{command}', command)));
      lines.push(`  ${yamlScalar(tool)}:`, ...patternMap([['*', 'deny'], ...rules(allow, 'allow'), ...rules(shell.deny, 'deny')]));
    } else if (manifest.permissionDenies[tool]) {
      lines.push(`  ${yamlScalar(tool)}:`, ...patternMap([['*', 'allow'], ...rules(manifest.permissionDenies[tool], 'deny')]));
    } else lines.push(`  ${yamlScalar(tool)}: allow`);
  }
  return lines;
}

type PatternRule = [pattern: string, action: 'allow' | 'deny'];
const rules = (patterns: string[], action: PatternRule[1]) => patterns.map((p): PatternRule => [p, action]);

/**
 * A pattern map with each pattern once: a YAML key may not repeat (a parser refuses the file, or
 * keeps either value). Keeping only a pattern's last rule changes nothing: the last match wins.
 */
function patternMap(entries: PatternRule[]): string[] {
  const last = new Map(entries.map(([pattern], i) => [pattern, i]));
  return entries
    .filter(([pattern], i) => last.get(pattern) === i)
    .map(([pattern, action]) => `    ${yamlScalar(pattern, { quote: true })}: ${action}`);
}
