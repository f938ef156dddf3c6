import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPABILITIES } from '../../src/shared/capabilities.ts';
import { gitRepo, install, read, testdir } from '../helpers.ts';
import { claudeAgent, codexRoles, copilotAgents, geminiAgents, opencodeAgent } from './checks.ts';
import { installRunners } from './install.ts';
import { type Mock, openaiMock } from './openai-mock.ts';

// The rendered agents, loaded by the real runner CLIs (pinned by each adapter manifest's runner block), offline:
// each runner must give each role exactly the tools its capabilities mean, and each negative
// control (a deliberately widened file) must be seen as widened, so the checks can fail.

const ROLES = ['planner', 'implementer', 'reviewer', 'verifier'];
let host = '';

/** The runner tools a role's capabilities mean for an adapter: the intent, read from the specs. */
function intended(adapter: string, role: string): string[] {
  const manifest = JSON.parse(read(host, `.gateline/core/adapters/${adapter}/manifest.json`)) as { tool_map: Record<string, string[]> };
  const caps = (/^capabilities: \[(.*)\]$/m.exec(read(host, `.gateline/core/roles/${role}.md`))?.[1] ?? '').split(', ');
  expect(caps.every((c) => (CAPABILITIES as readonly string[]).includes(c))).toBe(true);
  return [...new Set(caps.flatMap((c) => manifest.tool_map[c] ?? []))];
}

/** The tool names the runner sent to the mock model. */
function toolsOffered(mock: Mock): string[] {
  const names = mock.requests.flatMap((r) =>
    ((r as { body?: { tools?: { function?: { name?: string } }[] } }).body?.tools ?? []).map((t) => t.function?.name ?? ''),
  );
  return [...new Set(names)].filter(Boolean);
}

/** A repository with one hand-made, deliberately widened agent file. */
function widened(path: string, text: string): string {
  const dir = gitRepo();
  mkdirSync(join(dir, path, '..'), { recursive: true });
  writeFileSync(join(dir, path), text);
  return dir;
}

beforeAll(async () => {
  installRunners();
  host = gitRepo();
  const run = await install(host, ['--yes', '--hook', 'none']);
  expect(run.code, run.stderr).toBe(0);
}, 900_000);

describe('opencode (opencode debug agent)', () => {
  // opencode's edit permission covers the write tool; every other tool is its own permission.
  const permissionOf = (tool: string) => (tool === 'write' ? 'edit' : tool);
  for (const role of ROLES) {
    it(`${role}: exactly the mapped tools are allowed, everything else denied`, () => {
      const allowed = new Set(intended('opencode', role));
      const agent = opencodeAgent(host, testdir(), role);
      expect(agent.mode).toBe('subagent');
      expect(agent.model).toBe('openrouter/moonshotai/kimi-k2');
      const granted = Object.entries(agent.tools)
        .filter(([, on]) => on)
        .map(([tool]) => tool);
      expect(granted.length).toBeGreaterThan(0);
      for (const [tool, on] of Object.entries(agent.tools)) expect(on, `${role}: ${tool}`).toBe(allowed.has(permissionOf(tool)));
    });
  }
  it('negative control: a file without the deny-all map is seen as allowing everything', () => {
    const dir = widened('.opencode/agents/wide.md', '---\nname: wide\ndescription: widened\nmode: subagent\n---\nBody.\n');
    const tools = opencodeAgent(dir, testdir(), 'wide').tools;
    expect(tools.edit).toBe(true);
    expect(tools.write).toBe(true);
    expect(tools.bash).toBe(true);
  });
});

describe('Claude Code (claude -p --agent, init message)', () => {
  for (const role of ROLES) {
    it(`${role}: exactly the mapped tools`, () => {
      const declared = intended('claude-code', role);
      // This build searches through Bash: it drops Grep and Glob from the pool when Bash is there.
      const expected = declared.filter((t) => !(declared.includes('Bash') && (t === 'Grep' || t === 'Glob')));
      const agent = claudeAgent(host, testdir(), role);
      expect(new Set(agent.tools)).toEqual(new Set(expected));
      const alias = read(host, `.claude/agents/${role}.md`).match(/^model: (\w+)$/m)?.[1];
      expect(agent.model).toMatch(new RegExp(`^claude-${alias}`));
    });
  }
  it('negative control: a file without a tools line gets every tool', () => {
    const dir = widened('.claude/agents/wide.md', '---\nname: wide\ndescription: widened\nmodel: haiku\n---\nBody.\n');
    const tools = claudeAgent(dir, testdir(), 'wide').tools;
    expect(tools).toEqual(expect.arrayContaining(['Write', 'Edit', 'Bash']));
  });
});

describe("Gemini CLI (the bundle's own loader and executor)", () => {
  it('loads every rendered agent under its strict schema, with exactly the mapped tools', () => {
    const loaded = geminiAgents(host, testdir());
    expect(loaded.errors).toEqual([]);
    expect(loaded.feedback.filter((f) => /error/i.test(f))).toEqual([]);
    // The roles that list commands are not rendered for Gemini CLI (it cannot hold a shell to a list).
    const rendered = (JSON.parse(read(host, '.gateline/core/adapters/gemini-cli/manifest.json')) as { roles: string[] }).roles;
    expect(Object.keys(loaded.agents).sort()).toEqual([...rendered].sort());
    for (const role of rendered) {
      const expected = intended('gemini-cli', role);
      const agent = loaded.agents[role];
      expect(agent?.declared, role).toEqual(expected);
      // complete_task is how a Gemini subagent hands its result back; it is always added. The
      // default configuration of 0.61 does not register read_many_files, so no agent gets it.
      const reachable = expected.filter((t) => t !== 'read_many_files');
      expect(new Set(agent?.effective), role).toEqual(new Set([...reachable, 'complete_task']));
    }
  });
  it('negative control: a file without a tools list inherits the parent tools', () => {
    const dir = widened('.gemini/agents/wide.md', '---\nname: wide\ndescription: widened\n---\nBody.\n');
    const agent = geminiAgents(dir, testdir()).agents.wide;
    expect(agent?.declared).toBeNull();
    expect(agent?.effective).toEqual(expect.arrayContaining(['write_file', 'replace', 'run_shell_command']));
  });
  it('negative control: a key outside its schema (mode: subagent) makes the agent fail to load', () => {
    const dir = widened('.gemini/agents/odd.md', '---\nname: odd\ndescription: x\nmode: subagent\ntools: []\n---\nBody.\n');
    expect(geminiAgents(dir, testdir()).errors.join('\n')).toMatch(/Unrecognized key\(s\) in object: 'mode'/);
  });
});

describe('Gemini CLI cannot hold a shell to a command list in an agent file', () => {
  it('a run_shell_command(<prefix>) entry makes the agent fail to load (why its reviewer and verifier are not rendered)', () => {
    const dir = widened(
      '.gemini/agents/listed.md',
      '---\nname: listed\ndescription: x\ntools:\n  - read_file\n  - run_shell_command(git status)\n---\nBody.\n',
    );
    const loaded = geminiAgents(dir, testdir());
    expect(loaded.agents.listed).toBeUndefined();
    expect(loaded.errors.join('\n')).toMatch(/Invalid tool name/);
  });
});

describe('Codex (debug prompt-input, doctor --json)', () => {
  it('offers the rendered implementer with its model, with no malformed-role warning', () => {
    const { roles, warnings } = codexRoles(host, join(testdir(), 'codex-home'));
    expect(warnings).toEqual([]);
    expect(Object.keys(roles)).toContain('implementer');
    expect(roles.implementer).toContain('gpt-6.1-terra');
  });
  it('negative control: a role file with a key Codex does not know is refused and not offered', () => {
    const dir = widened(
      '.codex/agents/wide.toml',
      'name = "wide"\ndescription = "widened"\ndeveloper_instructions = "x"\ntools = ["read"]\n',
    );
    const { roles, warnings } = codexRoles(dir, join(testdir(), 'codex-home'));
    expect(roles.wide).toBeUndefined();
    expect(warnings.join('\n')).toMatch(/Ignoring malformed agent role definition/);
  });
});

describe('Copilot CLI (custom agents event, against a local mock provider)', () => {
  let mock: Mock;
  beforeAll(async () => {
    mock = await openaiMock();
  });
  afterAll(async () => {
    await mock.close();
  });
  it('loads every rendered agent with exactly the mapped tools, no warnings or errors', async () => {
    const data = await copilotAgents(host, testdir(), 'reviewer', mock.url);
    expect(data.errors).toEqual([]);
    expect(data.warnings).toEqual([]);
    for (const role of ROLES) {
      expect(data.agents.find((a) => a.id === role)?.tools, role).toEqual(intended('copilot', role));
    }
    // What the model was really offered while running as the reviewer (read, search, execute).
    const offered = toolsOffered(mock);
    expect(offered).toEqual(expect.arrayContaining(['view', 'grep', 'glob']));
    for (const tool of ['edit', 'create', 'web_fetch', 'task']) expect(offered).not.toContain(tool);
  });
  it('each tool alias the manifest declares grants some of the tools its target grants, and no other (what the leak check assumes)', async () => {
    const manifest = JSON.parse(read(host, '.gateline/core/adapters/copilot/manifest.json')) as { tool_aliases: Record<string, string> };
    // '' is an agent with no tools: what every agent is offered anyway.
    const names = ['', ...new Set([...Object.keys(manifest.tool_aliases), ...Object.values(manifest.tool_aliases)])];
    expect(names.length).toBeGreaterThan(6);
    const dir = gitRepo();
    mkdirSync(join(dir, '.github/agents'), { recursive: true });
    // A marker in each agent's prompt tells its requests apart: the runs share one mock.
    const marker = (i: number) => `probe-${i}-end`;
    names.forEach((name, i) => {
      const tools = name ? `[${JSON.stringify(name)}]` : '[]';
      writeFileSync(
        join(dir, `.github/agents/a${i}.agent.md`),
        `---\nname: a${i}\ndescription: probe\ntools: ${tools}\n---\n${marker(i)}\n`,
      );
    });
    mock.requests.length = 0;
    for (let i = 0; i < names.length; i += 6) {
      await Promise.all(names.slice(i, i + 6).map((_, j) => copilotAgents(dir, testdir(), `a${i + j}`, mock.url)));
    }
    const offered = (name: string) => {
      const i = names.indexOf(name);
      return toolsOffered({ ...mock, requests: mock.requests.filter((r) => JSON.stringify(r).includes(marker(i))) });
    };
    const always = offered('');
    const granted = (name: string) => offered(name).filter((t) => !always.includes(t));
    for (const [alias, tool] of Object.entries(manifest.tool_aliases)) {
      expect(granted(alias).length, alias).toBeGreaterThan(0);
      expect(granted(tool), `${alias} -> ${tool}`).toEqual(expect.arrayContaining(granted(alias)));
    }
  }, 600_000);
  it('negative control: a file without a tools list is loaded with every tool', async () => {
    const dir = widened('.github/agents/wide.agent.md', '---\nname: wide\ndescription: widened\n---\nBody.\n');
    mock.requests.length = 0;
    const data = await copilotAgents(dir, testdir(), 'wide', mock.url);
    expect(data.agents.find((a) => a.id === 'wide')?.tools).toEqual(['*']);
    expect(toolsOffered(mock)).toEqual(expect.arrayContaining(['edit', 'create']));
  });
});
