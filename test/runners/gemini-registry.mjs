// Loads a project's agents with Gemini CLI's own code (its bundle ships no CLI listing) and
// prints, for each, the tools it declares and the tools its executor really gets. Run as a
// child: node gemini-registry.mjs <bundle dir> <project dir>; the JSON goes to fd 3 because the
// bundle logs to stdout. GEMINI_CLI_HOME must point at a temp home.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';

const [bundle, project] = process.argv.slice(2);
const dir = resolve(project);
const entry = readdirSync(bundle).find(
  (f) => /^dist-.*\.js$/.test(f) && readFileSync(join(bundle, f), 'utf8').includes('loadAgentsFromDirectory'),
);
const core = await import(join(bundle, entry));

// Project agents register only once acknowledged (the interactive prompt stores their hashes);
// store them as that prompt would, in the temp home.
const ack = {};
const agents = join(dir, '.gemini', 'agents');
for (const file of readdirSync(agents).filter((f) => f.endsWith('.md') && !f.startsWith('_'))) {
  const text = readFileSync(join(agents, file), 'utf8');
  const name = /^name:\s*(\S+)/m.exec(text)?.[1];
  if (!name) continue;
  ack[dir] ??= {};
  ack[dir][name] = createHash('sha256').update(text).digest('hex');
}
mkdirSync(join(process.env.GEMINI_CLI_HOME, '.gemini', 'acknowledgments'), { recursive: true });
writeFileSync(join(process.env.GEMINI_CLI_HOME, '.gemini', 'acknowledgments', 'agents.json'), JSON.stringify(ack));

const loaded = await core.loadAgentsFromDirectory(agents);
const feedback = [];
core.coreEvents.on(core.CoreEvent.UserFeedback, (p) => feedback.push(`${p.severity}: ${p.message}`));
const config = new core.Config({
  sessionId: 'gateline-conformance',
  targetDir: dir,
  cwd: dir,
  debugMode: false,
  model: 'gemini-2.5-pro',
  folderTrust: true,
  trustedFolder: true,
  interactive: false,
  usageStatisticsEnabled: false,
});
await config.initialize();
const registry = config.getAgentRegistry();
const out = { errors: loaded.errors.map((e) => e.message), feedback, agents: {} };
for (const def of registry.getAllDefinitions()) {
  if (def.metadata?.filePath === undefined && !loaded.agents.some((a) => a.name === def.name)) continue; // built-ins
  const executor = await core.LocalAgentExecutor.create(def, {
    config,
    messageBus: config.getMessageBus(),
    toolRegistry: config.getToolRegistry(),
  });
  out.agents[def.name] = {
    model: def.modelConfig?.model,
    declared: def.toolConfig?.tools?.map((t) => (typeof t === 'string' ? t : t.name)) ?? null,
    effective: executor.toolRegistry.getAllToolNames(),
  };
}
writeSync(3, `${JSON.stringify(out)}\n`);
process.exit(0);
