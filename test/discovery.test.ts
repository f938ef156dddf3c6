import { spawnSync } from 'node:child_process';
import { chmodSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unmanagedAgents } from '../src/probe/unmanaged.ts';
import { discoverAgents, nestedBases, trackedAgentPaths } from '../src/render/discovery.ts';
import { listAdapters, loadManifest, type Manifest } from '../src/render/manifest.ts';
import { checkout, gateline, git, host, REPO, testdir, writeFiles } from './helpers.ts';

// The runner's view: what each runner discovers as an agent, as its manifest declares it, and
// what `validate` and `doctor` make of the files gateline did not render. The refusing cases of
// each rule are in rules.test.ts; here: the command line, what is left alone, and hostile entries.

const agent = (lines: string) => `---\ndescription: Mine.\n${lines ? `${lines}\n` : ''}---\nMine.\n`;
const MANIFESTS: Manifest[] = listAdapters(join(REPO, 'adapters')).flatMap(
  (n) => loadManifest(join(REPO, 'adapters'), 'adapters', n, []) ?? [],
);
const runnerOf = (adapter: string) => {
  const runner = MANIFESTS.find((m) => m.adapter === adapter)?.runner;
  if (!runner) throw new Error(`no runner block in ${adapter}`);
  return runner;
};

/** A checkout with this repository's roles and adapters, rendered, plus `files`. */
function rendered(files: Record<string, string> = {}): string {
  const dir = checkout();
  expect(gateline(['render'], dir).code).toBe(0);
  writeFiles(dir, files);
  return dir;
}

describe('gateline validate through the runners’ eyes', () => {
  it("refuses the issue's cases on the command line: exit 1, file:line, what to do, no stack", () => {
    const dir = rendered({
      '.claude/agents/zz/notes.md': agent('name: reviewer\ntools: Read, Write, Edit, Bash'),
      '.opencode/agents/gateline-reviewer.md': agent('disable: true'),
      '.gemini/agents/notes.md': agent('name: reviewer'),
    });
    const run = gateline(['validate'], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /\.claude\/agents\/zz\/notes\.md:3: claims the agent name 'reviewer' through its frontmatter name, which is the rendered reviewer \(\.claude\/agents\/reviewer\.md\); Claude Code would load one in place of the other\. Give it a name of its own, or move it out of \.claude\/agents/,
    );
    expect(run.stderr).toMatch(
      /\.opencode\/agents\/gateline-reviewer\.md: claims the agent name 'gateline-reviewer' through its file path, which is the name gateline up runs the reviewer under/,
    );
    expect(run.stderr).toMatch(/\.gemini\/agents\/notes\.md:3: claims the agent name 'reviewer'/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const json = JSON.parse(gateline(['validate', '--json'], dir).stdout);
    expect(json.problems.filter((p: { rule?: string }) => p.rule === 'rendered-names-unclaimed')).toHaveLength(3);
  });

  it('leaves alone what no runner loads under a rendered name', () => {
    const dir = rendered({
      '.claude/agents/mine.md': agent('name: my-helper\ntools: Read'),
      '.claude/agents/notes.txt': agent('name: reviewer'),
      '.claude/agents/desc.md': agent('name: helper2\nx:\n  name: reviewer'),
      '.gemini/agents/_draft.md': agent('name: reviewer'),
      '.gemini/agents/sub/deep.md': agent('name: reviewer'),
      '.gemini/agents/notes.md/inner.md': agent('name: reviewer'),
      '.opencode/agents/team/reviewer.md': agent(''),
      '.opencode/mode/sub/reviewer.md': agent(''),
      '.github/agents/sub/reviewer.agent.md': agent(''),
      '.codex/agents/x.toml': 'name = "helper"\ndescription = "x"\n[mcp_servers.x]\nname = "reviewer"\n',
    });
    const run = gateline(['validate'], dir);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });

  it('reads into a folder named like an agent where the runner recurses', () => {
    const dir = rendered({ '.claude/agents/notes.md/inner.md': agent('name: reviewer') });
    expect(gateline(['validate'], dir).stderr).toMatch(/\.claude\/agents\/notes\.md\/inner\.md:3: claims the agent name 'reviewer'/);
  });

  it('a FIFO in an agent folder neither hangs validate nor is read', () => {
    const dir = rendered();
    expect(spawnSync('mkfifo', [join(dir, '.claude/agents/pipe.md')]).status).toBe(0);
    const run = gateline(['validate'], dir);
    expect(run.code).toBe(0);
  });

  it('a link loop inside an agent folder ends', () => {
    const dir = rendered();
    symlinkSync('..', join(dir, '.claude/agents/loop'));
    symlinkSync('.', join(dir, '.opencode/agents/self'));
    expect(gateline(['validate'], dir).code).toBe(0);
  });

  it.skipIf(process.getuid?.() === 0)('an agent file gateline cannot read is refused, not skipped', () => {
    const dir = rendered({ '.claude/agents/locked.md': agent('name: reviewer') });
    chmodSync(join(dir, '.claude/agents/locked.md'), 0o000);
    const run = gateline(['validate'], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /\.claude\/agents\/locked\.md: Claude Code may load this file as an agent, and gateline cannot tell its name: it cannot be read \(EACCES\)/,
    );
  });

  it('refuses a host whose prefix is inside an agent folder, naming its lock', () => {
    const dir = host({}, { adapters: ['claude-code'], prefix: '.opencode/agents' });
    const run = gateline(['validate', '--prefix', '.opencode/agents'], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /\.opencode\/agents\/framework-lock\.json: '\.opencode\/agents' is inside \.opencode\/agents, where opencode discovers agents: it would load the vendored roles and overlays as agents/,
    );
  });
});

describe('what each runner discovers, as its manifest declares', () => {
  const files = {
    '.claude/agents/a.md': '',
    '.claude/agents/sub/b.md': '',
    '.opencode/agent/c.md': '',
    '.opencode/agents/team/d.md': '',
    '.opencode/mode/e.md': '',
    '.opencode/mode/sub/f.md': '',
    '.gemini/agents/g.md': '',
    '.gemini/agents/_h.md': '',
    '.gemini/agents/sub/i.md': '',
    '.github/agents/j.agent.md': '',
    '.github/agents/sub/k.agent.md': '',
    '.github/agents/l.md': '',
    '.codex/agents/sub/m.toml': '',
  };
  const names = (adapter: string, dir: string) => discoverAgents(dir, runnerOf(adapter).agents).files.map((f) => f.pathName);
  it('folders, recursion, endings and path names', () => {
    const dir = testdir(files);
    expect(names('claude-code', dir)).toEqual(['a', 'sub/b']);
    expect(names('opencode', dir)).toEqual(['c', 'team/d', 'e']);
    expect(names('gemini-cli', dir)).toEqual(['g']);
    expect(names('copilot', dir)).toEqual(['j', 'l', 'sub--k']);
    expect(names('codex', dir)).toEqual(['sub/m']);
  });
});

describe('folders below the root, where a runner started in a subfolder looks', () => {
  it('are found through what git tracks, and judged like the root ones', () => {
    const dir = checkout({
      'packages/app/.claude/agents/notes.md': agent('name: reviewer'),
      'packages/app/.github/agents/helper.agent.md': agent(''),
      'tools/.gemini/agents/mine.md': agent('name: mine'),
    });
    rmSync(join(dir, '.git'), { recursive: true, force: true });
    git(dir, 'init', '-q');
    git(dir, 'add', '-A');
    writeFiles(dir, { 'scratch/.claude/agents/untracked.md': agent('name: reviewer') });
    // One git run for every runner, as validate does; each runner takes its own folders from it.
    const runners = ['claude-code', 'copilot', 'gemini-cli'] as const;
    const listed = trackedAgentPaths(
      dir,
      runners.map((r) => runnerOf(r).agents),
    );
    expect(nestedBases(runnerOf('claude-code').agents, listed)).toEqual(['packages/app']);
    expect(nestedBases(runnerOf('copilot').agents, listed)).toEqual(['packages/app']);
    expect(nestedBases(runnerOf('gemini-cli').agents, listed)).toEqual(['tools']);
    expect(discoverAgents(dir, runnerOf('claude-code').agents, 'packages/app').files.map((f) => f.path)).toEqual([
      'packages/app/.claude/agents/notes.md',
    ]);
    const run = gateline(['validate'], dir);
    expect(run.stderr).toMatch(/packages\/app\/\.claude\/agents\/notes\.md:3: claims the agent name 'reviewer'/);
    // Not in git's index, so not in what a commit holds: left to the developer's machine.
    expect(run.stderr).not.toMatch(/scratch/);
  });

  it('none without git', () => {
    const dir = checkout({ 'packages/app/.claude/agents/notes.md': agent('name: reviewer') });
    expect(trackedAgentPaths(dir, [runnerOf('claude-code').agents])).toEqual([]);
  });
});

describe('gateline doctor lists the unmanaged agents with what they grant', () => {
  it('as each runner reads the tools key, and every tool when the key is absent', () => {
    const dir = rendered({
      '.claude/agents/team/mine.md': agent('name: mine'),
      '.claude/agents/narrow.md': agent('name: narrow\ntools: Read, Grep'),
      '.opencode/agents/open.md': agent('permission:\n  "*": deny\n  read: allow'),
      '.opencode/agents/wide.md': agent(''),
      '.gemini/agents/helper.md': agent('name: helper\ntools:\n  - read_file'),
      '.github/agents/sub/x.agent.md': agent('tools: []'),
      '.codex/agents/c.toml': 'name = "c"\ndescription = "x"\nsandbox_mode = "danger-full-access"\n',
      '.codex/agents/d.toml': 'name = "d"\ndescription = "x"\n',
    });
    expect(unmanagedAgents(dir, MANIFESTS)).toEqual([
      '.claude/agents/narrow.md (Claude Code, name \'narrow\'): tools: "Read, Grep"',
      ".claude/agents/team/mine.md (Claude Code, name 'mine'): all tools (no 'tools' key: the runner's default is every tool)",
      '.codex/agents/c.toml (Codex, name \'c\'): sandbox_mode: "danger-full-access"',
      ".codex/agents/d.toml (Codex, name 'd'): all tools (no 'sandbox_mode' key: the runner's default is every tool)",
      ".github/agents/sub/x.agent.md (GitHub Copilot CLI, name 'sub--x'): tools: []",
      '.gemini/agents/helper.md (Gemini CLI, name \'helper\'): tools: ["read_file"]',
      '.opencode/agents/open.md (opencode, name \'open\'): permission: {"*":"deny","read":"allow"}',
      ".opencode/agents/wide.md (opencode, name 'wide'): all tools (no 'permission' key: the runner's default is every tool)",
    ]);
  });
});
