import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAdapters, takesAgentFile } from '../src/up/adapter.ts';
import { invocation, resumeTemplate } from '../src/up/argv.ts';
import { runnerEnv } from '../src/up/environment.ts';
import { grantArgs } from '../src/up/grants.ts';
import { assertArgvAllowed, PermissionBypassError } from '../src/up/guard.ts';
import { addMeters, meter } from '../src/up/meter.ts';
import { OutputError, parseOutput } from '../src/up/output.ts';
import { needsPrimaryCopy, primaryCopy } from '../src/up/primary.ts';
import type { Registry } from '../src/up/registry.ts';
import { formatTable } from '../src/up/table.ts';
import { readVerdict } from '../src/up/verdict.ts';
import { REPO } from './helpers.ts';

/** A shipped adapter, through the one manifest loader. */
function adapter(name: string) {
  const [loaded] = loadAdapters(REPO, '', [name]);
  if (!loaded) throw new Error(`no adapter ${name}`);
  return loaded;
}

describe('the argv allow-list (every final argv, before every spawn)', () => {
  const ROLE_CAPS = {
    reviewer: { capabilities: ['read', 'search', 'shell'] as const, commands: ['git status', 'git diff'] },
    implementer: { capabilities: ['read', 'search', 'edit', 'write', 'shell'] as const },
  };
  /** The argv gateline up would start for `role` on `name`, plus `extra`, through the guard. */
  const guard = (name: string, role: keyof typeof ROLE_CAPS, extra: string[] = []) => {
    const a = adapter(name);
    const headless = a.headless as NonNullable<typeof a.headless>;
    const grants = grantArgs(headless, ROLE_CAPS[role]);
    const vars = { prompt: 'gateline up: you are the reviewer', role, model: 'm' };
    const inv = invocation(a, { ...vars, grants });
    // Before the trailing positional prompt (codex, opencode), so a flag is read as a flag.
    const at = inv.args.indexOf(vars.prompt);
    const args = headless.positionals.includes('{prompt}')
      ? [...inv.args.slice(0, at), ...extra, ...inv.args.slice(at)]
      : [...inv.args, ...extra];
    return () => assertArgvAllowed(headless.command, args, `${name} ${role}`, { headless, grants, vars });
  };

  // Each bypass issue 12 found, and the spellings around it: refused because they are not on the list.
  const refused: [string, string[]][] = [
    ['claude-code', ['--settings', '{"permissions":{"defaultMode":"bypass\\u0050ermissions"}}']],
    ['claude-code', ['--settings', '{"permissions":{"defaultMode":"bypassPermissions"}}']],
    ['claude-code', ['--settings={"permissions":{"allow":["Bash"]}}']],
    ['claude-code', ['--settings', 'bypass.json']],
    ['claude-code', ['--permission-mode', 'acceptEdits']],
    ['claude-code', ['--permission-mode', 'auto']],
    ['claude-code', ['--permission-mode', 'bypassPermissions']],
    ['claude-code', ['--permission-mode=acceptEdits']],
    ['claude-code', ['--permissionMode', 'acceptEdits']],
    ['claude-code', ['--dangerously-skip-permissions']],
    ['claude-code', ['--allow-dangerously-skip-permissions']],
    ['claude-code', ['--allowedTools', 'Bash']],
    ['claude-code', ['--allowedTools=Write']],
    ['claude-code', ['--allowed-tools', 'Bash']],
    ['claude-code', ['--agent', 'wide']],
    ['claude-code', ['--model', '--dangerously-skip-permissions']],
    ['claude-code', ['--', '--dangerously-skip-permissions']],
    ['codex', ['-c', 'sandbox_mode="danger\\u002dfull-access"']],
    ['codex', ['-c', "approval_policy='never'"]],
    ['codex', ['--config', 'sandbox_mode="danger-full-access"']],
    ['codex', ['-csandbox_mode="danger-full-access"']],
    ['codex', ['--sandbox', 'danger-full-access']],
    ['codex', ['--sandbox=danger-full-access']],
    ['codex', ['-s', 'danger-full-access']],
    ['codex', ['-sdanger-full-access']],
    ['codex', ['--dangerously-bypass-approvals-and-sandbox']],
    ['codex', ['--ask-for-approval', 'never']],
    ['codex', ['-a', 'never']],
    ['codex', ['--full-auto']],
    ['codex', ['-p', 'yolo']],
    ['codex', ['resume']],
    ['gemini-cli', ['-dy']],
    ['gemini-cli', ['-y']],
    ['gemini-cli', ['--yolo']],
    ['gemini-cli', ['--approvalMode', 'yolo']],
    ['gemini-cli', ['--approval-mode', 'yolo']],
    ['gemini-cli', ['--approval-mode=auto_edit']],
    ['gemini-cli', ['--approval_mode', 'yolo']],
    ['copilot', ['--allow-all-urls']],
    ['copilot', ['--mode', 'autopilot']],
    ['copilot', ['--allow-tool', 'shell']],
    ['copilot', ['--allow-tool=shell']],
    ['copilot', ['--allow-tool', 'write']],
    ['copilot', ['--allow-tool', 'shell(rm)']],
    ['copilot', ['--allow-all-tools']],
    ['copilot', ['--allow-all']],
    ['copilot', ['--yolo']],
    ['opencode', ['--dangerously-skip-permissions']],
    ['opencode', ['--agent', 'build']],
    ['opencode', ['extra words']],
  ];
  for (const [name, flags] of refused) {
    it(`refuses ${flags.join(' ')} on ${name} (reviewer)`, () => {
      expect(guard(name, 'reviewer', flags)).toThrow(PermissionBypassError);
      expect(guard(name, 'reviewer', flags)).toThrow(/^.*: refusing to run '\w+' with '.*': .*only flags gateline knows are safe/);
    });
  }

  it("lets every shipped headless block through with each role's own grants", () => {
    for (const name of ['claude-code', 'opencode', 'gemini-cli', 'codex', 'copilot'])
      for (const role of ['reviewer', 'implementer'] as const) expect(guard(name, role), `${name} ${role}`).not.toThrow();
  });

  it("refuses a grant the role was not given, though the manifest declares it (the implementer's Write on the reviewer)", () => {
    expect(guard('claude-code', 'implementer', ['--allowedTools', 'Write'])).not.toThrow();
    expect(guard('claude-code', 'reviewer', ['--allowedTools', 'Write'])).toThrow(/approves a tool the role was not granted/);
  });

  it('does not read a prompt that mentions a flag as that flag', () => {
    const a = adapter('claude-code');
    const headless = a.headless as NonNullable<typeof a.headless>;
    const vars = { prompt: 'gateline up: never pass --yolo or -y', role: 'reviewer', model: 'm' };
    expect(() => assertArgvAllowed('claude', invocation(a, vars).args, 'x', { headless, vars })).not.toThrow();
  });

  it('refuses a session id from the runner that would be read as a flag', () => {
    const a = adapter('claude-code');
    const headless = a.headless as NonNullable<typeof a.headless>;
    const vars = { prompt: 'gateline up: x', role: 'reviewer', model: 'm', session: '--dangerously-skip-permissions' };
    expect(() => assertArgvAllowed('claude', invocation(a, vars).args, 'x', { headless, vars })).toThrow(/would be read as a flag/);
  });
});

describe('which lanes are narrowed by an agent file', () => {
  it('only `--agent` followed by `{role}`, as two elements, hands the runner the agent file', () => {
    expect(takesAgentFile(['-p', '{prompt}', '--agent', '{role}', '--model', '{model}'])).toBe(true);
    for (const args of [
      ['-p', '(as {role}) {prompt}', '--model', '{model}'],
      ['-p', '{prompt}', '--agent={role}'],
      ['-p', '{prompt}', '--agent', 'x-{role}'],
      ['-p', '{prompt}', '--agent', '{role}-x'],
      ['-p', '{prompt}', '--persona', '{role}'],
      ['-p', '{prompt}', '{role}', '--agent'],
    ]) {
      expect(takesAgentFile(args), args.join(' ')).toBe(false);
    }
    expect(takesAgentFile(adapter('gemini-cli').headless?.args ?? [])).toBe(false);
    expect(takesAgentFile(adapter('codex').headless?.args ?? [])).toBe(false);
    for (const name of ['claude-code', 'opencode', 'copilot']) expect(takesAgentFile(adapter(name).headless?.args ?? [])).toBe(true);
  });
});

describe('argv templating', () => {
  it('substitutes in one pass: placeholders inside the prompt stay as written', () => {
    const inv = invocation(adapter('claude-code'), {
      prompt: 'fix {role} and {model} {session}',
      role: 'reviewer',
      model: 'opus',
    });
    expect(inv).toEqual({
      command: 'claude',
      args: [
        '-p',
        'fix {role} and {model} {session}',
        '--agent',
        'reviewer',
        '--model',
        'opus',
        '--output-format',
        'json',
        '--settings',
        '{"permissions":{"deny":["Read(./.env)","Read(./.env.*)"]}}',
      ],
      resumed: false,
    });
  });

  it("continues an opencode session with its resume_args, keeping the agent and the model (never opencode's default agent)", () => {
    const a = adapter('opencode');
    expect(resumeTemplate(a)).toEqual([
      'run',
      '--format',
      'json',
      '--agent',
      '{role}',
      '--model',
      '{model}',
      '--session',
      '{session}',
      '{prompt}',
    ]);
    const inv = invocation(a, { prompt: 'again', role: 'gateline-implementer', model: 'k2', session: 'ses_1' });
    expect(inv.args).toEqual([
      'run',
      '--format',
      'json',
      '--agent',
      'gateline-implementer',
      '--model',
      'k2',
      '--session',
      'ses_1',
      'again',
    ]);
    // A manifest whose resume_args lack them still gets both carried over from args.
    const bare = {
      ...a,
      headless: { ...a.headless, resumeArgs: ['run', '--format', 'json', '--session', '{session}', '{prompt}'] },
    } as typeof a;
    expect(resumeTemplate(bare)).toEqual([
      'run',
      '--format',
      'json',
      '--session',
      '{session}',
      '--agent',
      '{role}',
      '--model',
      '{model}',
      '{prompt}',
    ]);
    expect(inv.resumed).toBe(true);
  });

  it('continues a Claude Code session with -p --resume <id>', () => {
    const inv = invocation(adapter('claude-code'), { prompt: 'again', role: 'implementer', model: 'sonnet', session: 'abc' });
    expect(inv.args.slice(-2)).toEqual(['--resume', 'abc']);
    expect(inv.args.slice(0, 8)).toEqual(['-p', 'again', '--agent', 'implementer', '--model', 'sonnet', '--output-format', 'json']);
  });

  it('has no resume for a runner whose headless block gives none (Gemini CLI): a fresh run', () => {
    const a = adapter('gemini-cli');
    expect(resumeTemplate(a)).toBeUndefined();
    expect(invocation(a, { prompt: 'p', role: 'implementer', model: 'g', session: 'x' })).toMatchObject({
      resumed: false,
      args: ['-p', 'p', '--model', 'g', '--output-format', 'json'],
    });
  });
});

describe('runner output', () => {
  it("reads Claude Code's result object: text, session_id, total_cost_usd, usage", () => {
    const out = JSON.stringify({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: 'VERDICT: PASS',
      session_id: 's-1',
      total_cost_usd: 0.25,
      usage: { input_tokens: 10, cache_creation_input_tokens: 5, cache_read_input_tokens: 100, output_tokens: 7 },
    });
    expect(parseOutput('claude-json', out)).toEqual({
      text: 'VERDICT: PASS',
      session: 's-1',
      costUsd: 0.25,
      tokens: { input: 115, output: 7 },
    });
    expect(
      parseOutput('claude-json', JSON.stringify({ type: 'result', is_error: true, subtype: 'error_max_turns', result: '' })).error,
    ).toBe('error_max_turns');
    expect(() => parseOutput('claude-json', '{"type":"system"}')).toThrow(OutputError);
  });

  it("reads opencode's JSONL: sessionID, text parts, and the sum of every step_finish cost and tokens", () => {
    const line = (o: object) => JSON.stringify({ timestamp: 1, sessionID: 'ses_9', ...o });
    const out = [
      line({ type: 'step_start', part: {} }),
      line({ type: 'text', part: { text: 'part one' } }),
      line({ type: 'step_finish', part: { cost: 0.01, tokens: { input: 100, output: 20, reasoning: 5, cache: { read: 50, write: 0 } } } }),
      line({ type: 'text', part: { text: 'part two' } }),
      line({ type: 'step_finish', part: { cost: 0.02, tokens: { input: 10, output: 2, reasoning: 0, cache: { read: 0, write: 0 } } } }),
    ].join('\n');
    const parsed = parseOutput('opencode-jsonl', out, 'sessionID');
    expect(parsed).toMatchObject({ text: 'part one\npart two', session: 'ses_9', tokens: { input: 160, output: 27 } });
    expect(parsed.costUsd).toBeCloseTo(0.03, 10);
    expect(
      parseOutput('opencode-jsonl', line({ type: 'error', error: { name: 'APIError', data: { message: 'rate limited' } } })).error,
    ).toBe('rate limited');
    expect(() => parseOutput('opencode-jsonl', `${line({ type: 'text', part: { text: 'x' } })}\nnot json`)).toThrow(
      /line 2 of stdout is not JSON/,
    );
  });

  it("reads Gemini CLI's JSON: response, session_id and per-model token stats (no USD)", () => {
    const out = JSON.stringify({
      session_id: 'g-1',
      response: 'done',
      stats: { models: { 'gemini-3.5-flash': { tokens: { prompt: 1000, candidates: 200, thoughts: 50, cached: 0, total: 1250 } } } },
    });
    expect(parseOutput('gemini-json', out)).toEqual({ text: 'done', session: 'g-1', tokens: { input: 1000, output: 250 } });
    expect(parseOutput('gemini-json', `Loaded cached credentials.\n${out}`).text).toBe('done');
    expect(parseOutput('gemini-json', JSON.stringify({ session_id: 'g', error: { type: 'X', message: 'quota' } })).error).toBe('quota');
  });

  it("reads Codex's JSONL: thread_id, agent messages, turn usage", () => {
    const out = [
      { type: 'thread.started', thread_id: 't-1' },
      { type: 'item.completed', item: { id: 'i', type: 'agent_message', text: 'did it' } },
      { type: 'turn.completed', usage: { input_tokens: 300, cached_input_tokens: 200, output_tokens: 40 } },
    ]
      .map((o) => JSON.stringify(o))
      .join('\n');
    expect(parseOutput('codex-jsonl', out)).toEqual({
      text: 'did it',
      session: 't-1',
      tokens: { input: 300, output: 40 },
      error: undefined,
    });
  });

  it('refuses empty or non-JSON output from a JSON runner, and reads a plain-text runner as text', () => {
    expect(() => parseOutput('claude-json', '  \n')).toThrow(/printed nothing/);
    expect(() => parseOutput('gemini-json', 'Error: not trusted')).toThrow(/not one JSON object/);
    expect(parseOutput('text', 'hello\n')).toEqual({ text: 'hello' });
  });
});

describe('metering', () => {
  const registry: Registry = {
    file: 'r',
    pins: {},
    models: { m: { vendor: 'v', line: 1, pricing: { inputPerMtok: 2, outputPerMtok: 10 } } },
  };

  it('takes real cost when the runner reports it, else estimates from tokens x price per million', () => {
    expect(meter({ text: '', costUsd: 0.5, tokens: { input: 1, output: 1 } }, 'm', registry)).toEqual({
      tokensIn: 1,
      tokensOut: 1,
      costUsd: 0.5,
      basis: 'runner-reported',
    });
    expect(meter({ text: '', tokens: { input: 1_000_000, output: 500_000 } }, 'm', registry)).toEqual({
      tokensIn: 1_000_000,
      tokensOut: 500_000,
      costUsd: 7,
      basis: 'estimated',
    });
    expect(meter({ text: '', tokens: { input: 1, output: 1 } }, 'unpriced', registry).basis).toBe('unknown');
    expect(meter({ text: '' }, 'm', registry)).toEqual({ tokensIn: undefined, tokensOut: undefined, basis: 'unknown' });
  });

  it('adds meters up, the weakest basis winning', () => {
    expect(
      addMeters([
        { tokensIn: 1, tokensOut: 2, costUsd: 1, basis: 'runner-reported' },
        { tokensIn: 3, tokensOut: 4, costUsd: 2, basis: 'estimated' },
      ]),
    ).toEqual({ tokensIn: 4, tokensOut: 6, costUsd: 3, basis: 'estimated' });
    expect(addMeters([{ costUsd: 1, basis: 'runner-reported' }, { basis: 'unknown' }]).basis).toBe('unknown');
  });
});

describe('verdicts', () => {
  it('reads only a line of its own', () => {
    expect(readVerdict('VERDICT: PASS\n\n## Criteria')).toBe('PASS');
    expect(readVerdict('intro\n**VERDICT: REQUEST_CHANGES**\n')).toBe('REQUEST_CHANGES');
    expect(readVerdict('the VERDICT: PASS is what I would say')).toBeUndefined();
    expect(readVerdict('no verdict here')).toBeUndefined();
  });
});

describe('the opencode primary copy', () => {
  const rendered = readFileSync(join(REPO, '.opencode/agents/reviewer.md'), 'utf8');

  it('changes only the mode and name lines; the permission map, model and body stay byte for byte', () => {
    const copy = primaryCopy(rendered, 'reviewer');
    const before = rendered.split('\n');
    const after = copy.split('\n');
    expect(after).toHaveLength(before.length);
    const changed = before.flatMap((line, i) => (line === after[i] ? [] : [`${line} -> ${after[i]}`]));
    expect(changed).toEqual(['name: reviewer -> name: gateline-reviewer', 'mode: subagent -> mode: primary']);
    expect(copy).toContain('permission:\n  "*": deny\n  read:\n    "*": allow\n    "*.env": deny\n');
  });

  it('is needed exactly when the rendered file says mode: subagent in its frontmatter, whatever the command', () => {
    expect(needsPrimaryCopy(rendered)).toBe(true);
    expect(needsPrimaryCopy(readFileSync(join(REPO, '.claude/agents/reviewer.md'), 'utf8'))).toBe(false);
    expect(needsPrimaryCopy(rendered.replace('mode: subagent', 'mode: primary'))).toBe(false);
    expect(needsPrimaryCopy(rendered.replace('mode: subagent\n', '').replace('# Reviewer', 'mode: subagent\n# Reviewer'))).toBe(false);
    // A quoted spelling still counts, and the copy then refuses it rather than run the subagent by name.
    const quoted = rendered.replace('mode: subagent', 'mode: "subagent"');
    expect(needsPrimaryCopy(quoted)).toBe(true);
    expect(() => primaryCopy(quoted, 'reviewer')).toThrow(/mode: "subagent"/);
  });

  it('refuses a file without the expected name line or with an unknown mode', () => {
    expect(() => primaryCopy(rendered, 'planner')).toThrow(/no 'name: planner' line/);
    expect(() => primaryCopy(rendered.replace('mode: subagent', 'mode: weird'), 'reviewer')).toThrow(/mode: weird/);
    expect(() => primaryCopy('no frontmatter', 'reviewer')).toThrow(/no frontmatter/);
  });
});

describe('tables', () => {
  it('pads columns and trims line ends', () => {
    expect(
      formatTable(
        ['a', 'bb'],
        [
          ['ccc', ''],
          ['d', 'e'],
        ],
      ),
    ).toBe('a    bb\nccc\nd    e');
  });
});

describe('headless pre-approvals (grants)', () => {
  const headless = {
    command: 'runner',
    args: ['{prompt}'],
    output: 'text' as const,
    grants: { edit: ['--allow', 'files'], write: ['--allow', 'files'], shell: ['--allow', 'shell'], web: ['--allow', 'web'] },
    commandGrant: ['--allow', 'shell({command})'],
  };

  it("grants only the capabilities the role has, each fragment once, in the role's order", () => {
    expect(grantArgs(headless, { capabilities: ['read', 'search', 'edit', 'write', 'shell'] })).toEqual([
      '--allow',
      'files',
      '--allow',
      'shell',
    ]);
    expect(grantArgs(headless, { capabilities: ['read', 'search'] })).toEqual([]);
  });

  it('a role that lists commands gets one grant per command and never the whole shell', () => {
    const args = grantArgs(headless, { capabilities: ['read', 'shell'], commands: ['git status', 'npm test'] });
    expect(args).toEqual(['--allow', 'shell(git status)', '--allow', 'shell(npm test)']);
    expect(args).not.toContain('shell');
  });

  it('without a command grant, a role that lists commands gets no shell grant at all', () => {
    expect(grantArgs({ ...headless, commandGrant: undefined }, { capabilities: ['shell'], commands: ['git status'] })).toEqual([]);
  });
});

describe("a runner's environment (headless.scrub_env)", () => {
  for (const name of ['claude-code', 'opencode', 'gemini-cli', 'codex', 'copilot']) {
    it(`${name}: each variable that changes its permissions, config or agent lookup is removed, the rest kept`, () => {
      const headless = adapter(name).headless as NonNullable<ReturnType<typeof adapter>['headless']>;
      expect(headless.scrubEnv.length).toBeGreaterThan(0);
      const base = { PATH: '/bin', HOME: '/home/u', ...Object.fromEntries(headless.scrubEnv.map((n) => [n, 'planted'])) };
      const env = runnerEnv(base, headless, { GATELINE_OWN: 'x' });
      for (const n of headless.scrubEnv) expect(env[n], n).toBeUndefined();
      expect(env).toEqual({ PATH: '/bin', HOME: '/home/u', GATELINE_OWN: 'x' });
    });
  }
  it("gateline's own variable wins over a scrubbed one of the same name (the opencode primary copy's folder)", () => {
    expect(runnerEnv({ OPENCODE_CONFIG_DIR: 'planted' }, { scrubEnv: ['OPENCODE_CONFIG_DIR'] }, { OPENCODE_CONFIG_DIR: 'ours' })).toEqual({
      OPENCODE_CONFIG_DIR: 'ours',
    });
  });
});
