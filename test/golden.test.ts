import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkout, gateline, host, read } from './helpers.ts';

// Every rendered output is pinned byte for byte in test/golden/. A missing golden file fails the
// run: it is never written on the fly, so a typo in a name or a deleted file cannot pass. After an
// intended change, regenerate them explicitly with `UPDATE_GOLDEN=1 npx vitest run test/golden.test.ts`
// and review the diff of test/golden/ like any other code change.

const GOLDEN = join(import.meta.dirname, 'golden');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

/** Compares `actual` with test/golden/<name>; writes it there instead only under UPDATE_GOLDEN=1. */
function matchesGolden(actual: string, name: string): void {
  const path = join(GOLDEN, name);
  if (UPDATE) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
    return;
  }
  expect(existsSync(path), `test/golden/${name} is missing; create it with UPDATE_GOLDEN=1 and review it`).toBe(true);
  expect(actual).toBe(readFileSync(path, 'utf8'));
}

const ADAPTERS = {
  'claude-code': '.claude/agents',
  copilot: '.github/agents',
  'gemini-cli': '.gemini/agents',
  opencode: '.opencode/agents',
};
const SUFFIX: Record<string, string> = { copilot: '.agent.md' };
const ROLES = ['planner', 'implementer', 'reviewer', 'verifier'];
// Gemini CLI cannot hold a shell to a command list, so the roles that list commands are not rendered
// for it (rule commands-narrow-the-shell).
const NOT_RENDERED: Record<string, string[]> = { 'gemini-cli': ['reviewer', 'verifier'] };

describe('golden files: every shipped adapter x role', () => {
  const dir = checkout();
  const run = gateline(['render'], dir);
  it('renders', () => expect(run.code, run.stderr).toBe(0));
  for (const [adapter, out] of Object.entries(ADAPTERS)) {
    for (const role of ROLES) {
      const file = `${out}/${role}${SUFFIX[adapter] ?? '.md'}`;
      if (NOT_RENDERED[adapter]?.includes(role))
        it(`${adapter} ${role} is not rendered`, () => expect(existsSync(join(dir, file)), file).toBe(false));
      else it(`${adapter} ${role}`, () => matchesGolden(read(dir, file), `${adapter}/${role}.md`));
    }
  }
  it('codex implementer', () => {
    matchesGolden(read(dir, '.codex/agents/implementer.toml'), 'codex/implementer.toml');
  });
});

describe('golden files: overlays', () => {
  it("comment-only overlays splice nothing: output equals the framework render, but for the header's host command", () => {
    const stub = '<!-- Write project policy for every agent here. -->\n';
    const dir = host({ '.gateline/overlays/_all.md': stub, '.gateline/overlays/reviewer.md': `${stub}\n<!--\nmulti-line\n-->\n` });
    expect(gateline(['render'], dir).code).toBe(0);
    // In a host the header points to the overlay and the vendored core's entry instead of the role spec.
    const inHost = (text: string) =>
      text.replace(
        'Edit the role spec, then run: gateline render',
        'Edit .gateline/overlays/reviewer.md (or _all.md), then run: node .gateline/core/src/gateline.mjs render',
      );
    for (const [adapter, out] of Object.entries(ADAPTERS)) {
      if (NOT_RENDERED[adapter]?.includes('reviewer')) continue;
      expect(read(dir, `${out}/reviewer${SUFFIX[adapter] ?? '.md'}`)).toBe(inHost(read(GOLDEN, `${adapter}/reviewer.md`)));
    }
  });

  it('overlays with content are spliced after the body: _all first, then the role', () => {
    const dir = host({
      '.gateline/overlays/_all.md': '<!-- stub comment -->\nAlways run `make check` before reporting.\r\n',
      '.gateline/overlays/reviewer.md': '\uFEFFReview against docs/STYLE.md as well.\n\n',
      '.gateline/overlays/planner.md': '<!-- only a comment -->\n',
    });
    const run = gateline(['render'], dir);
    expect(run.code, run.stderr).toBe(0);
    matchesGolden(read(dir, '.claude/agents/reviewer.md'), 'overlays/claude-code-reviewer.md');
    matchesGolden(read(dir, '.opencode/agents/planner.md'), 'overlays/opencode-planner.md');
    matchesGolden(read(dir, '.codex/agents/implementer.toml'), 'overlays/codex-implementer.toml');
  });
});

describe('golden files are never written by accident', () => {
  it.skipIf(UPDATE)('a missing golden file fails instead of being created', () => {
    const name = 'overlays/no-such-golden.md';
    expect(() => matchesGolden('anything\n', name)).toThrow(/test\/golden\/overlays\/no-such-golden\.md is missing/);
    expect(existsSync(join(GOLDEN, name))).toBe(false);
  });
});
