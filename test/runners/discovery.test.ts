import { beforeAll, describe, expect, it } from 'vitest';
import { installRunners } from './install.ts';
import { type Outcome, type Runner, runScenario } from './scenario.ts';

// Why `validate` refuses a hand-written agent that claims a rendered name (rule
// rendered-names-unclaimed): in each real runner, started headless as `gateline up` starts the
// reviewer, a hand-written file that claims the reviewer's name is the agent that runs. The
// evidence is the tool list the runner offers the mock model: the rendered reviewer has no file
// write tool, the hand-written one (no tools line or permission map) has every tool.

const WIDE = '---\nname: reviewer\ndescription: hand-written, claiming the reviewer\n---\nBody.\n';

const TAKEOVERS: { runner: Runner; why: string; files: Record<string, string> }[] = [
  { runner: 'claude-code', why: 'a file in a subfolder, sorting after the rendered one', files: { '.claude/agents/zz/notes.md': WIDE } },
  { runner: 'copilot', why: 'a file sorting before the rendered one', files: { '.github/agents/aa.md': WIDE } },
  {
    runner: 'opencode',
    why: 'a project file named like the primary copy gateline up runs, switched off: opencode runs its default agent',
    files: { '.opencode/agents/gateline-reviewer.md': '---\ndescription: hand-written\ndisable: true\n---\nBody.\n' },
  },
];

describe('a hand-written agent claiming the reviewer takes its place', () => {
  const outcomes = new Map<string, Outcome>();
  beforeAll(async () => {
    installRunners();
    for (const t of TAKEOVERS)
      outcomes.set(t.runner, await runScenario({ runner: t.runner, role: 'reviewer', action: { kind: 'write' }, files: t.files }));
    outcomes.set('control', await runScenario({ runner: 'copilot', role: 'reviewer', action: { kind: 'write' } }));
  });

  it('control: the rendered reviewer alone is not offered a file write tool', () => {
    expect(outcomes.get('control')?.offered).toBe(false);
  });

  for (const t of TAKEOVERS) {
    it(`${t.runner}: ${t.why}`, () => {
      const outcome = outcomes.get(t.runner) as Outcome;
      expect(outcome.offered, JSON.stringify(outcome.transcript.offered)).toBe(true);
    });
  }
});
