import { describe, expect, it } from 'vitest';
import { checkout, gateline, host, read } from './helpers.ts';

// Every rendered output is pinned byte for byte. After an intended change, review the diff of
// `npx vitest run -u` (it rewrites test/golden/) like any other code change.

const ADAPTERS = {
  'claude-code': '.claude/agents',
  copilot: '.github/agents',
  'gemini-cli': '.gemini/agents',
  opencode: '.opencode/agents',
};
const SUFFIX: Record<string, string> = { copilot: '.agent.md' };
const ROLES = ['planner', 'implementer', 'reviewer', 'verifier'];

describe('golden files: every shipped adapter x role', () => {
  const dir = checkout();
  const run = gateline(['render'], dir);
  it('renders', () => expect(run.code, run.stderr).toBe(0));
  for (const [adapter, out] of Object.entries(ADAPTERS)) {
    for (const role of ROLES) {
      it(`${adapter} ${role}`, async () => {
        await expect(read(dir, `${out}/${role}${SUFFIX[adapter] ?? '.md'}`)).toMatchFileSnapshot(`golden/${adapter}/${role}.md`);
      });
    }
  }
  it('codex implementer', async () => {
    await expect(read(dir, '.codex/agents/implementer.toml')).toMatchFileSnapshot('golden/codex/implementer.toml');
  });
});

describe('golden files: overlays', () => {
  it('comment-only overlays splice nothing: output equals the framework render', () => {
    const stub = '<!-- Write project policy for every agent here. -->\n';
    const dir = host({ '.gateline/overlays/_all.md': stub, '.gateline/overlays/reviewer.md': `${stub}\n<!--\nmulti-line\n-->\n` });
    expect(gateline(['render'], dir).code).toBe(0);
    for (const [adapter, out] of Object.entries(ADAPTERS)) {
      expect(read(dir, `${out}/reviewer${SUFFIX[adapter] ?? '.md'}`)).toBe(read(import.meta.dirname, `golden/${adapter}/reviewer.md`));
    }
  });

  it('overlays with content are spliced after the body: _all first, then the role', async () => {
    const dir = host({
      '.gateline/overlays/_all.md': '<!-- stub comment -->\nAlways run `make check` before reporting.\r\n',
      '.gateline/overlays/reviewer.md': '\uFEFFReview against docs/STYLE.md as well.\n\n',
      '.gateline/overlays/planner.md': '<!-- only a comment -->\n',
    });
    const run = gateline(['render'], dir);
    expect(run.code, run.stderr).toBe(0);
    await expect(read(dir, '.claude/agents/reviewer.md')).toMatchFileSnapshot('golden/overlays/claude-code-reviewer.md');
    await expect(read(dir, '.opencode/agents/planner.md')).toMatchFileSnapshot('golden/overlays/opencode-planner.md');
    await expect(read(dir, '.codex/agents/implementer.toml')).toMatchFileSnapshot('golden/overlays/codex-implementer.toml');
  });
});
