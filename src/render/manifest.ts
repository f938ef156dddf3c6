import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isCapability, ROLE_NAME } from '../shared/capabilities.ts';
import { parseJson } from '../shared/json.ts';
import type { Problem } from '../shared/problem.ts';
import { lineOfJsonKey, readInput } from '../shared/text.ts';
import { type Headless, readHeadless } from './headless.ts';
import { manifestValues, rules } from './rules.ts';
import { type Runner, readRunner } from './runner.ts';
import { readPermissionDenies, readShellCommands, readToolAliases, type ShellCommands } from './shell.ts';
import { readVendors } from './vendors.ts';

export type ToolsStyle = 'csv' | 'yaml-list' | 'permission-map' | 'codex-sandbox';
const TOOLS_STYLES: ToolsStyle[] = ['csv', 'yaml-list', 'permission-map', 'codex-sandbox'];

export type Scalar = string | number | boolean;

export interface Manifest {
  adapter: string;
  /** Display path, relative to the repository root. */
  file: string;
  outputDir: string;
  filename: string;
  toolsStyle: ToolsStyle;
  roles: string[];
  toolMap: Record<string, string[]>;
  modelMap: Record<string, string>;
  modelOverrides: Record<string, string>;
  extraFrontmatter: Record<string, Scalar>;
  /** Capabilities the runner cannot withhold, with the reason: a role lacking one is refused. */
  floor: Record<string, string>;
  /** How a role's command list becomes shell permission patterns (permission-map adapters). */
  shellCommands?: ShellCommands;
  /** Patterns denied under a permission the role is allowed, keeping the runner's own protections. */
  permissionDenies: Record<string, string[]>;
  /** Names the runner treats as the same tool (alias -> tool), so the leak check sees through them. */
  toolAliases: Record<string, string>;
  /** Which vendor serves each model spelling (for `gateline up`; the renderer never reads it). */
  vendors: Record<string, string>;
  /** How `gateline up` runs the runner (the renderer never reads it). */
  headless?: Headless;
  /** The runner CLI: package, proven version, agent folders, host checks (for probe and doctor). */
  runner?: Runner;
  /** The JSON text, to point messages at the line of a key. */
  text: string;
}

const KNOWN_KEYS = [
  '$schema',
  '_comment',
  'adapter',
  'output_dir',
  'filename',
  'tools_style',
  'roles',
  'tool_map',
  'model_map',
  'model_overrides',
  'extra_frontmatter',
  'extra_frontmatter_keys',
  'floor',
  'model_vendors',
  'headless',
  'runner',
  'shell_commands',
  'permission_denies',
  'tool_aliases',
];

// The narrowing and containment rules a manifest must pass on its own (rules.ts).
const MANIFEST_RULES = [
  rules.outputDirInRepo,
  rules.filenameIsAName,
  rules.noWildcardTools,
  rules.plainToolNames,
  rules.permissionNamesArePlain,
  rules.extraFrontmatterAllowListed,
  rules.extraFrontmatterKeepsRenderedKeys,
  rules.sessionOnlyOnResume,
  rules.commandPatternsStartWithCommand,
  rules.grantsApproveOneTool,
  rules.argvIsAllowListed,
  rules.grantsMatchToolMap,
];

/** Lists adapters: folders under `adaptersDir` that hold a manifest.json, sorted by name. */
export function listAdapters(adaptersDir: string): string[] {
  if (!existsSync(adaptersDir)) return [];
  return readdirSync(adaptersDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(adaptersDir, d.name, 'manifest.json')))
    .map((d) => d.name)
    .sort();
}

export function loadManifest(adaptersDir: string, displayDir: string, name: string, problems: Problem[]): Manifest | undefined {
  const file = `${displayDir}/${name}/manifest.json`;
  const text = readInput(join(adaptersDir, name, 'manifest.json'), file, problems);
  if (text === undefined) return undefined;
  const parsed = parseJson(text, file, problems, 'fix the syntax');
  if (!parsed) return undefined;
  const json = parsed.value;
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    problems.push({ file, line: 1, message: 'a manifest must be a JSON object' });
    return undefined;
  }
  const m = json as Record<string, unknown>;
  const before = problems.length;
  const at = (key: string) => lineOfJsonKey(text, key);
  const bad = (key: string, message: string) => problems.push({ file, line: at(key), message: `'${key}' ${message}` });

  for (const key of Object.keys(m)) {
    if (!KNOWN_KEYS.includes(key)) bad(key, `is not a manifest key (known: ${KNOWN_KEYS.join(', ')})`);
  }
  for (const key of ['adapter', 'output_dir', 'filename', 'tools_style']) {
    if (typeof m[key] !== 'string' || m[key] === '') bad(key, m[key] === undefined ? 'is required' : 'must be a non-empty string');
  }
  if (typeof m.adapter === 'string' && m.adapter !== name) bad('adapter', `is '${m.adapter}' but the folder is '${name}': make them equal`);
  if (typeof m.tools_style === 'string' && !TOOLS_STYLES.includes(m.tools_style as ToolsStyle)) {
    bad('tools_style', `must be one of ${TOOLS_STYLES.join(', ')}`);
  }
  const roles = stringArray(m.roles);
  if (!roles) bad('roles', m.roles === undefined ? 'is required (a list of role names)' : 'must be an array of role names');
  else {
    for (const role of roles) if (!ROLE_NAME.test(role)) bad('roles', `lists '${role}', which is not a role name (${ROLE_NAME.source})`);
    if (new Set(roles).size !== roles.length) bad('roles', 'lists a role twice');
  }

  const toolMap = record(m.tool_map, 'tool_map', bad) ?? {};
  for (const [cap, tools] of Object.entries(toolMap)) {
    if (!isCapability(cap)) bad('tool_map', `maps '${cap}', which is not a capability`);
    if (!stringArray(tools)) bad('tool_map', `'${cap}' must map to an array of tool names`);
  }
  const modelMap = stringRecord(m.model_map, 'model_map', bad) ?? {};
  const modelOverrides = stringRecord(m.model_overrides ?? {}, 'model_overrides', bad) ?? {};
  const extra = record(m.extra_frontmatter ?? {}, 'extra_frontmatter', bad) ?? {};
  for (const [key, value] of Object.entries(extra)) {
    if (!/^[A-Za-z][A-Za-z0-9_-]*$/.test(key)) {
      bad('extra_frontmatter', `key '${key}' is not a plain frontmatter key`);
    } else if (!['string', 'number', 'boolean'].includes(typeof value)) {
      bad('extra_frontmatter', `'${key}' must be a string, number or boolean (frontmatter stays flat)`);
    } else if (typeof value === 'number' && !plainNumber(value)) {
      bad(
        'extra_frontmatter',
        `'${key}' is ${value}: write a plain decimal (a safe integer, or digits with one '.'), which YAML and TOML read alike`,
      );
    }
  }
  if (m.extra_frontmatter_keys !== undefined && !stringArray(m.extra_frontmatter_keys))
    bad('extra_frontmatter_keys', 'must be an array of frontmatter keys');
  const floor = stringRecord(m.floor ?? {}, 'floor', bad, 'a reason') ?? {};
  for (const cap of Object.keys(floor)) if (!isCapability(cap)) bad('floor', `names '${cap}', which is not a capability`);
  if (typeof m.filename === 'string' && typeof m.tools_style === 'string') {
    const toml = m.filename.endsWith('.toml');
    if (toml !== (m.tools_style === 'codex-sandbox')) {
      bad('tools_style', toml ? "must be 'codex-sandbox' for a .toml filename" : "'codex-sandbox' needs a .toml filename");
    }
  }
  const vendors = readVendors(m.model_vendors, bad);
  const headless = readHeadless(m.headless, bad);
  const runner = readRunner(m.runner, bad);
  const shellCommands = readShellCommands(m.shell_commands, bad);
  const permissionDenies = readPermissionDenies(m.permission_denies, bad);
  const toolAliases = readToolAliases(m.tool_aliases, bad);
  if (m._comment !== undefined && typeof m._comment !== 'string' && !stringArray(m._comment)) {
    bad('_comment', 'must be a string or an array of strings');
  }
  const input = { file, text, json: m };
  for (const check of MANIFEST_RULES) problems.push(...check(input));
  const values = manifestValues(input);
  problems.push(...rules.noControlCharacters(values), ...rules.noFenceInValues(values));
  if (problems.length > before) return undefined;
  return {
    adapter: name,
    file,
    outputDir: (m.output_dir as string).replace(/\/+$/, ''),
    filename: m.filename as string,
    toolsStyle: m.tools_style as ToolsStyle,
    roles: roles as string[],
    toolMap: toolMap as Record<string, string[]>,
    modelMap,
    modelOverrides,
    extraFrontmatter: extra as Record<string, Scalar>,
    floor,
    shellCommands,
    permissionDenies,
    toolAliases,
    vendors,
    headless,
    runner,
    text,
  };
}

/** A number that prints as a plain decimal (no exponent, no -0) and, if whole, is a safe integer. */
const plainNumber = (n: number) =>
  /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(String(n)) && !Object.is(n, -0) && (!Number.isInteger(n) || Number.isSafeInteger(n));

export function stringArray(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined;
}

function record(value: unknown, key: string, bad: (key: string, message: string) => void): Record<string, unknown> | undefined {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  bad(key, value === undefined ? 'is required (an object)' : 'must be an object');
  return undefined;
}

function stringRecord(
  value: unknown,
  key: string,
  bad: (key: string, message: string) => void,
  what = 'a model name',
): Record<string, string> | undefined {
  const obj = record(value, key, bad);
  if (!obj) return undefined;
  for (const [k, v] of Object.entries(obj)) {
    if (typeof v !== 'string' || v.trim() === '' || /[\n"]/.test(v)) {
      bad(key, `'${k}' must be ${what} on one line`);
      return undefined;
    }
  }
  return obj as Record<string, string>;
}
