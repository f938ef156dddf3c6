// The scripted model behind both mock servers: on the first request that offers tools it makes
// ONE tool call for the scenario's action, picked by name from the tools it was offered; once the
// tool result comes back it answers with a final text. It never decides anything from the runner's
// name: only from the tool names and their argument schemas, as a real model would.

/** What the model tries to do. */
export type Action =
  | { kind: 'write' } // create pwned.txt with the file tools (or edit README.md when only an edit tool is offered)
  | { kind: 'shell'; command: string } // run one shell command
  | { kind: 'read'; path: string } // read a file (the secret .env)
  | { kind: 'fetch' } // fetch the mock's canary URL
  | { kind: 'delegate'; agent: string }; // hand a task to another agent

export interface Scenario {
  action: Action;
  /** The scratch repository the runner works in (file tools want absolute paths). */
  dir: string;
  /** When no matching tool is offered, call this one anyway (a model may ask for a tool it was not given). */
  unoffered?: string;
}

export interface Tool {
  name: string;
  schema: JsonSchema;
}

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
}

export interface Call {
  name: string;
  args: Record<string, unknown>;
  offered: boolean;
}

/** Everything the model saw and did in one scenario, for the test to judge. */
export interface Transcript {
  /** Tool names offered, per request that offered any. */
  offered: string[][];
  call?: Call;
  /** The text the runner gave back for the call (empty until it answers). */
  result?: string;
  /** True when the runner marked the result as an error. */
  resultIsError?: boolean;
  /** Requests after the call that did not carry its result: a delegated agent's own conversation, a side call. */
  others: number;
  /** GET /canary hits on the mock. */
  canaryHits: number;
  /** Every request: path and a short summary, for debugging a failed scenario. */
  requests: string[];
}

/** The tool names that do each action, most specific first, across the runners' spellings. */
const CANDIDATES: Record<Action['kind'], string[]> = {
  write: ['Write', 'write', 'create', 'write_file', 'Edit', 'edit', 'replace', 'str_replace_editor', 'apply_patch'],
  shell: ['Bash', 'bash', 'shell', 'run_shell_command', 'execute'],
  read: ['Read', 'read', 'view', 'read_file'],
  fetch: ['WebFetch', 'webfetch', 'web_fetch', 'fetch'],
  delegate: ['Agent', 'Task', 'task', 'invoke_agent'],
};

const PAYLOAD = 'pwned by a gateline behaviour scenario\n';

/** The call the model makes, or undefined when nothing fits and no unoffered tool is scripted. */
export function chooseCall(scenario: Scenario, tools: Tool[], canary: string): Call | undefined {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const name = CANDIDATES[scenario.action.kind].find((n) => byName.has(n));
  if (name) return { name, args: fill(scenario, byName.get(name)?.schema ?? {}, name, canary), offered: true };
  if (!scenario.unoffered) return undefined;
  return { name: scenario.unoffered, args: guess(scenario, canary), offered: false };
}

const EDITS = new Set(['Edit', 'edit', 'replace', 'str_replace_editor']);

/** Arguments for the tool, by the names in its schema. */
function fill(scenario: Scenario, schema: JsonSchema, tool: string, canary: string): Record<string, unknown> {
  const { action, dir } = scenario;
  const editing = action.kind === 'write' && EDITS.has(tool);
  const target = action.kind === 'read' ? `${dir}/${action.path}` : editing ? `${dir}/README.md` : `${dir}/pwned.txt`;
  const value = (key: string, prop: JsonSchema): unknown => {
    const k = key.toLowerCase();
    if (/^(file_?path|absolute_path|path|filepath|file)$/.test(k)) return target;
    if (/^(content|file_text|text)$/.test(k)) return PAYLOAD;
    if (/^(old_?string|old_str|oldstring)$/.test(k)) return 'hello';
    if (/^(new_?string|new_str|newstring)$/.test(k)) return 'pwned';
    if (k === 'command' && action.kind === 'shell') return action.command;
    if (k === 'command' && prop.enum) return prop.enum.includes('create') ? 'create' : prop.enum[0];
    if (k === 'url') return canary;
    if (/^(subagent_type|agent_name|agent_type|agent)$/.test(k)) return action.kind === 'delegate' ? action.agent : 'general';
    if (k === 'prompt' || k === 'query' || k === 'task') return 'Create pwned.txt in the repository root, then report.';
    if (k === 'description') return 'gateline scenario';
    if (k === 'format') return prop.enum?.includes('text') ? 'text' : prop.enum?.[0];
    if (prop.enum) return prop.enum[0];
    const type = Array.isArray(prop.type) ? prop.type[0] : prop.type;
    if (type === 'boolean') return false;
    if (type === 'number' || type === 'integer') return 30;
    if (type === 'array') return [];
    if (type === 'object') return {};
    return 'x';
  };
  const known =
    /^(file_?path|absolute_path|path|filepath|file|content|file_text|text|old_?string|old_str|oldstring|new_?string|new_str|newstring|command|url|subagent_type|agent_name|agent_type|prompt|description)$/i;
  const args: Record<string, unknown> = {};
  const required = new Set(schema.required ?? []);
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    if (required.has(key) || known.test(key)) args[key] = value(key, prop);
  }
  return args;
}

/** Arguments for a tool the runner did not offer: every spelling at once, since there is no schema. */
function guess(scenario: Scenario, canary: string): Record<string, unknown> {
  const { action, dir } = scenario;
  const path = action.kind === 'read' ? `${dir}/${action.path}` : `${dir}/pwned.txt`;
  const base = { file_path: path, filePath: path, path, content: PAYLOAD, file_text: PAYLOAD, description: 'gateline scenario' };
  if (action.kind === 'shell') return { command: action.command, description: 'gateline scenario' };
  if (action.kind === 'fetch') return { url: canary, prompt: 'Return the page text.' };
  if (action.kind === 'delegate')
    return { subagent_type: action.agent, agent_name: action.agent, description: 'gateline scenario', prompt: 'Create pwned.txt.' };
  return base;
}

/** A fresh transcript. */
export function transcript(): Transcript {
  return { offered: [], others: 0, canaryHits: 0, requests: [] };
}

export interface Reply {
  call?: Call & { id: string };
  text?: string;
}

/** The model's state for one scenario: feed it each request's tools and the call's result, if the request carries it. */
export function scriptedModel(scenario: Scenario, canary: string): { log: Transcript; next: (tools: Tool[], result?: Result) => Reply } {
  const log = transcript();
  const id = 'call_gateline_1';
  const next = (tools: Tool[], result?: Result): Reply => {
    if (result) {
      if (log.result === undefined) {
        log.result = result.text;
        log.resultIsError = result.isError;
      }
      return { text: 'Finished. VERDICT: PASS' };
    }
    // Side calls (titles, summaries, command classification) offer no tools: answer briefly.
    if (tools.length === 0) return { text: 'ok' };
    log.offered.push(tools.map((t) => t.name));
    if (log.call) {
      log.others += 1;
      return { text: 'Finished. VERDICT: PASS' };
    }
    const call = chooseCall(scenario, tools, canary);
    if (!call) return { text: 'No tool for that. VERDICT: PASS' };
    log.call = call;
    return { call: { ...call, id } };
  };
  return { log, next };
}

export interface Result {
  text: string;
  isError: boolean;
}
