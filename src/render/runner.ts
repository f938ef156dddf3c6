import { checkRelativePath } from '../shared/paths.ts';

// A manifest's `runner` block: what gateline knows about the runner CLI itself, apart from how
// it is started (`headless`). The probe and `gateline doctor` read it, and so does the suite that
// installs each runner to prove the rendered files load; the renderer never does.

/** Host steps a runner needs before it loads project agents; `gateline doctor` knows how to check each. */
export const HOST_CHECKS = ['agents-acknowledged', 'project-trusted'] as const;
export type HostCheckKind = (typeof HOST_CHECKS)[number];

export interface HostCheck {
  /** The finding's id in `gateline doctor --json`. */
  id: string;
  check: HostCheckKind;
  /** The runner's record of it, relative to the runner's home. */
  file: string;
}

/** Where a runner takes an agent's name from (`agents.name`, in the runner's order). */
export const NAME_SOURCES = ['frontmatter', 'toml', 'path'] as const;
export type NameSource = (typeof NAME_SOURCES)[number];

/** Where the runner discovers project agents, and how it names them. */
export interface AgentFolders {
  /** Each folder, relative to the repository root, and whether its subfolders are read too. */
  dirs: { dir: string; recursive: boolean }[];
  /** Files ending so are agents; the longest ending that matches is cut off the path name. */
  suffixes: string[];
  /** Files starting so are skipped. */
  ignorePrefix?: string;
  /**
   * Where the name comes from, in the runner's order: the YAML frontmatter's `name`, the TOML
   * file's top-level `name`, or the path under the folder without the ending.
   */
  name: NameSource[];
  /**
   * True when the runner also reads these folders below the repository root: in the folder it is
   * started in, and each one above it (Claude Code: `packages/app/.claude/agents`).
   */
  nested: boolean;
  /** Joins the folders of a path name (`team/reviewer`; Copilot: `team--reviewer`). */
  pathSeparator: string;
  /** The key that lists an agent's tools, and what the runner grants when it is absent. */
  tools?: { key: string; missing: 'all' | 'none' };
}

export interface Runner {
  /** The runner's name in messages. */
  title: string;
  /** Its npm package. */
  package: string;
  /** The version the conformance suite installs and proves; `gateline doctor` reports older ones. */
  proven: string;
  /** Its configuration folder, `~/` for the user's home. */
  home?: string;
  /** The environment variable that moves `home`, when there is one. */
  homeEnv?: string;
  agents: AgentFolders;
  hostChecks: HostCheck[];
}

const KEYS = ['title', 'package', 'proven', 'home', 'home_env', 'agents', 'host_checks'];
const AGENT_KEYS = ['dirs', 'suffix', 'recursive', 'ignore_prefix', 'name', 'path_separator', 'tools', 'nested'];
const CHECK_KEYS = ['id', 'check', 'file'];
const PACKAGE = /^(@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*$/;
const VERSION = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;

/** Reads `runner` (undefined when absent); reports each flaw through `bad(key, message)`, which names the key's line. */
export function readRunner(value: unknown, bad: (key: string, message: string) => void): Runner | undefined {
  if (value === undefined) return undefined;
  let failed = false;
  const fail = (key: string, message: string) => {
    failed = true;
    bad(key, `in 'runner' ${message}`);
  };
  const r = object(value);
  if (!r) {
    bad('runner', 'must be an object');
    return undefined;
  }
  for (const key of Object.keys(r)) if (!KEYS.includes(key)) fail(key, `is not a runner key (known: ${KEYS.join(', ')})`);
  // A missing key has no line of its own: the message points at the block.
  const need = (key: string, what: string) => {
    failed = true;
    bad('runner', `needs '${key}': ${what}`);
  };
  if (r.title === undefined) need('title', "the runner's name in messages");
  else if (!oneLine(r.title)) fail('title', 'must be a name on one line');
  if (r.package === undefined) need('package', "the runner's npm package");
  else if (typeof r.package !== 'string' || !PACKAGE.test(r.package)) fail('package', 'must be an npm package name');
  if (r.proven === undefined) need('proven', 'the version the conformance suite proves');
  else if (typeof r.proven !== 'string' || !VERSION.test(r.proven))
    fail('proven', 'must be the version the conformance suite proves, such as 1.2.3');
  if (r.home !== undefined && (typeof r.home !== 'string' || !r.home.startsWith('~/') || !plainPath(r.home.slice(2)))) {
    fail('home', "must be a folder under the user's home, written ~/NAME");
  }
  if (r.home_env !== undefined && (typeof r.home_env !== 'string' || !/^[A-Z_][A-Z0-9_]*$/.test(r.home_env))) {
    fail('home_env', 'must be the name of an environment variable');
  }
  if (r.home_env !== undefined && r.home === undefined) fail('home_env', "moves 'home', which is not set");
  if (r.agents === undefined) need('agents', 'the folders where the runner finds project agents');
  const agents = r.agents === undefined ? undefined : readAgents(r.agents, fail);
  const checks = Array.isArray(r.host_checks) ? r.host_checks : r.host_checks === undefined ? [] : undefined;
  if (!checks) fail('host_checks', 'must be an array of checks');
  const hostChecks = (checks ?? []).map((c) => readCheck(c, fail));
  if (checks?.length && r.home === undefined) fail('host_checks', "name files in the runner's 'home', which is not set");
  if (new Set(hostChecks.map((c) => c?.id)).size !== hostChecks.length) fail('host_checks', 'use an id twice');
  if (failed || !agents) return undefined;
  return {
    title: r.title as string,
    package: r.package as string,
    proven: r.proven as string,
    home: r.home as string | undefined,
    homeEnv: r.home_env as string | undefined,
    agents,
    hostChecks: hostChecks as HostCheck[],
  };
}

function readAgents(value: unknown, fail: (key: string, message: string) => void): AgentFolders | undefined {
  const a = object(value);
  if (!a) {
    fail('agents', 'must be an object');
    return undefined;
  }
  let failed = false;
  const flaw = (key: string, message: string) => {
    failed = true;
    fail(key, message);
  };
  for (const key of Object.keys(a))
    if (!AGENT_KEYS.includes(key)) flaw('agents', `has the unknown key '${key}' (known: ${AGENT_KEYS.join(', ')})`);
  const folders = 'a non-empty array of folders relative to the repository root (or {"dir", "recursive"})';
  const recursive = a.recursive === true;
  if (a.recursive !== undefined && typeof a.recursive !== 'boolean') flaw('recursive', 'must be true or false');
  if (a.nested !== undefined && typeof a.nested !== 'boolean') flaw('nested', 'must be true or false');
  const dirs = Array.isArray(a.dirs) && a.dirs.length > 0 ? a.dirs.map((d) => folder(d, recursive)) : undefined;
  if (a.dirs === undefined) flaw('agents', `needs 'dirs': ${folders}`);
  else if (!dirs || dirs.includes(undefined)) flaw('dirs', `must be ${folders}`);
  for (const d of dirs ?? []) if (d) checkRelativePath(d.dir, (message) => flaw('dirs', message));
  const suffixes = typeof a.suffix === 'string' ? [a.suffix] : Array.isArray(a.suffix) && a.suffix.length > 0 ? a.suffix : undefined;
  if (a.suffix === undefined) flaw('agents', "needs 'suffix': the file ending of an agent, such as .md");
  else if (!suffixes?.every((x) => typeof x === 'string' && /^\.[A-Za-z0-9.]+$/.test(x)))
    flaw('suffix', 'must be a file ending such as .md, or a list of them');
  if (a.ignore_prefix !== undefined && !oneLine(a.ignore_prefix)) flaw('ignore_prefix', 'must be a non-empty string');
  const name = Array.isArray(a.name) && a.name.length > 0 ? a.name : undefined;
  if (a.name === undefined) flaw('agents', `needs 'name': where the runner takes an agent's name from (${NAME_SOURCES.join(', ')})`);
  else if (!name?.every((n) => NAME_SOURCES.includes(n)) || new Set(name).size !== name.length)
    flaw('name', `must list, without repeats, where the name comes from: ${NAME_SOURCES.join(', ')}`);
  if (a.path_separator !== undefined && !['/', '--'].includes(a.path_separator as string)) flaw('path_separator', "must be '/' or '--'");
  const tools = object(a.tools);
  if (a.tools !== undefined && (!tools || !oneLine(tools.key) || !['all', 'none'].includes(tools.missing as string)))
    flaw('tools', 'must be {"key": the key that lists an agent\'s tools, "missing": "all" or "none"}');
  if (failed) return undefined;
  return {
    dirs: dirs as { dir: string; recursive: boolean }[],
    suffixes: [...(suffixes as string[])].sort((x, y) => y.length - x.length),
    ignorePrefix: a.ignore_prefix as string | undefined,
    name: name as NameSource[],
    nested: a.nested === true,
    pathSeparator: (a.path_separator as string | undefined) ?? '/',
    tools: tools ? { key: tools.key as string, missing: tools.missing as 'all' | 'none' } : undefined,
  };
}

/** A `dirs` entry: a folder (read with the block's `recursive`) or {"dir", "recursive"}. */
function folder(value: unknown, recursive: boolean): { dir: string; recursive: boolean } | undefined {
  if (typeof value === 'string') return { dir: value.replace(/\/+$/, ''), recursive };
  const o = object(value);
  if (!o || typeof o.dir !== 'string' || typeof o.recursive !== 'boolean' || Object.keys(o).length !== 2) return undefined;
  return { dir: o.dir.replace(/\/+$/, ''), recursive: o.recursive };
}

function readCheck(value: unknown, fail: (key: string, message: string) => void): HostCheck | undefined {
  const c = object(value);
  if (!c) {
    fail('host_checks', 'must hold objects with id, check and file');
    return undefined;
  }
  let failed = false;
  const flaw = (key: string, message: string) => {
    failed = true;
    fail(key, message);
  };
  for (const key of Object.keys(c)) {
    if (!CHECK_KEYS.includes(key)) flaw('host_checks', `has a check with the unknown key '${key}' (known: ${CHECK_KEYS.join(', ')})`);
  }
  if (typeof c.id !== 'string' || !/^[a-z][a-z0-9-]*$/.test(c.id)) flaw('host_checks', "has a check whose 'id' is not a lowercase name");
  if (!HOST_CHECKS.includes(c.check as HostCheckKind)) {
    flaw('host_checks', `has the check ${JSON.stringify(c.check)}, which gateline doctor does not know (known: ${HOST_CHECKS.join(', ')})`);
  }
  if (typeof c.file !== 'string' || !plainPath(c.file))
    flaw('host_checks', "has a check whose 'file' is not a path inside the runner's home");
  return failed ? undefined : { id: c.id as string, check: c.check as HostCheckKind, file: c.file as string };
}

function object(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** A relative path of plain parts: no '..', no empty part, no backslash or control character. */
function plainPath(path: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
  return !/[\\\u0000-\u001f\u007f]/.test(path) && path.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
}

function oneLine(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== '' && !value.includes('\n');
}
