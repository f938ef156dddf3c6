import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkout, gateline, MAIN, read, snapshot } from './helpers.ts';

describe('render', () => {
  it('writes only files whose content changed, leaves no temp files, and is idempotent', () => {
    const dir = checkout();
    expect(gateline(['render'], dir).stdout).toMatch(/15 written, 0 removed, 0 up to date/);
    const old = new Date('2020-01-01');
    for (const f of readdirSync(join(dir, '.claude/agents'))) utimesSync(join(dir, '.claude/agents', f), old, old);
    writeFileSync(join(dir, 'roles/reviewer.md'), read(dir, 'roles/reviewer.md').replace('# Reviewer', '# Reviewer (changed)'));
    const run = gateline(['render'], dir);
    expect(run.stdout).toMatch(/wrote \.claude\/agents\/reviewer\.md/);
    expect(run.stdout).toMatch(/3 written, 0 removed, 12 up to date/);
    expect(statSync(join(dir, '.claude/agents/planner.md')).mtime).toEqual(old);
    expect(statSync(join(dir, '.claude/agents/reviewer.md')).mtime).not.toEqual(old);
    expect(readdirSync(join(dir, '.claude/agents')).sort()).toEqual(['implementer.md', 'planner.md', 'reviewer.md', 'verifier.md']);
    const before = snapshot(dir);
    expect(gateline(['render'], dir).stdout).toMatch(/0 written, 0 removed, 15 up to date/);
    expect(snapshot(dir)).toEqual(before);
  });

  it('removes orphans but never a hand-written file next to them', () => {
    const dir = checkout();
    gateline(['render'], dir);
    writeFileSync(join(dir, '.claude/agents/mine.md'), '---\nname: mine\ndescription: hand-written\n---\nMine.\n');
    const manifest = join(dir, 'adapters/claude-code/manifest.json');
    writeFileSync(manifest, read(dir, 'adapters/claude-code/manifest.json').replace('"planner", ', ''));
    const run = gateline(['render'], dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/removed \.claude\/agents\/planner\.md/);
    expect(read(dir, '.claude/agents/mine.md')).toContain('Mine.');
  });

  it('leaves alone a rendered file copied to a new name and edited (it is new work, not an orphan)', () => {
    const dir = checkout();
    gateline(['render'], dir);
    const copy = `${read(dir, '.claude/agents/reviewer.md')}\nAlso check the threat model.\n`;
    writeFileSync(join(dir, '.claude/agents/security-reviewer.md'), copy);
    expect(gateline(['render', '--check'], dir).code).toBe(0);
    expect(gateline(['render'], dir).stdout).not.toMatch(/^removed /m);
    expect(read(dir, '.claude/agents/security-reviewer.md')).toBe(copy);
  });

  it('counts the header only in its place: right after the frontmatter', () => {
    const dir = checkout();
    gateline(['render'], dir);
    const quoted = `---\nname: notes\ndescription: x\n---\nOur agents say:\n${read(dir, '.claude/agents/reviewer.md').split('\n')[6]}\n`;
    writeFileSync(join(dir, '.claude/agents/notes.md'), quoted);
    expect(gateline(['render'], dir).stdout).not.toMatch(/^removed /m);
    writeFileSync(join(dir, '.claude/agents/reviewer.md'), quoted);
    expect(gateline(['render'], dir).stderr).toMatch(/\.claude\/agents\/reviewer\.md: was written by hand/);
  });

  it('is byte-identical across runs and checkouts: LF, one trailing newline, no timestamps or paths', () => {
    const a = checkout();
    const b = checkout();
    gateline(['render'], a);
    gateline(['render'], b);
    for (const f of ['.claude/agents/planner.md', '.opencode/agents/verifier.md', '.gemini/agents/implementer.md']) {
      const text = read(a, f);
      expect(text).toBe(read(b, f));
      expect(text).not.toContain('\r');
      expect(text).not.toContain(a);
      expect(text.endsWith('\n') && !text.endsWith('\n\n')).toBe(true);
    }
  });
});

describe('render --check', () => {
  it('writes nothing and lists each missing, stale and orphaned file with a diff and the fix', () => {
    const dir = checkout();
    gateline(['render'], dir);
    writeFileSync(
      join(dir, '.claude/agents/reviewer.md'),
      read(dir, '.claude/agents/reviewer.md').replace('tools: Read, Grep, Glob, Bash', 'tools: Read, Grep, Glob, Bash, Edit'),
    );
    unlinkSync(join(dir, '.gemini/agents/planner.md'));
    // What an earlier render of a role named 'old' left behind.
    writeFileSync(
      join(dir, '.opencode/agents/old.md'),
      read(dir, '.opencode/agents/planner.md').replace('roles/planner.md', 'roles/old.md'),
    );
    const before = snapshot(dir);
    const run = gateline(['render', '--check'], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/\.claude\/agents\/reviewer\.md: stale/);
    expect(run.stderr).toMatch(/-tools: Read, Grep, Glob, Bash, Edit\n\s+\+tools: Read, Grep, Glob, Bash\n/);
    expect(run.stderr).toMatch(/\.gemini\/agents\/planner\.md: missing/);
    expect(run.stderr).toMatch(/\.opencode\/agents\/old\.md: orphan/);
    expect(run.stderr).toMatch(/3 files out of date\. Fix: node .*src\/gateline\.mjs render/);
    expect(snapshot(dir)).toEqual(before);
    expect(gateline(['render'], dir).code).toBe(0);
    expect(gateline(['render', '--check'], dir).code).toBe(0);
  });

  it('--json prints one result object', () => {
    const dir = checkout();
    const stale = JSON.parse(gateline(['render', '--check', '--json'], dir).stdout);
    expect(stale).toMatchObject({ command: 'render', check: true, ok: false, mode: 'framework' });
    expect(stale.files).toHaveLength(15);
    expect(stale.files[0]).toEqual({ path: '.claude/agents/planner.md', status: 'missing', adapter: 'claude-code', role: 'planner' });
    gateline(['render'], dir);
    const fresh = JSON.parse(gateline(['render', '--check', '--json'], dir).stdout);
    expect(fresh.ok).toBe(true);
    expect(fresh.files.every((f: { status: string }) => f.status === 'fresh')).toBe(true);
    const bad = gateline(['render', '--json', '--nope'], dir);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout)).toMatchObject({ ok: false, problems: [{ file: 'gateline' }] });
  });
});

describe('help and errors', () => {
  it('--help lists the commands and exit codes', () => {
    const run = gateline(['--help'], checkout());
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/render --check/);
    expect(run.stdout).toMatch(/Exit codes: 0 ok, 1 .*, 2 a usage error/);
  });

  it('an expected error prints no stack trace; --verbose adds it', () => {
    const dir = checkout();
    const plain = gateline(['render', '--root', '/'], dir);
    expect(plain.code).toBe(1);
    expect(plain.stderr).not.toMatch(/\n\s+at /);
    const verbose = gateline(['render', '--root', '/', '--verbose'], dir);
    expect(verbose.code).toBe(1);
    expect(verbose.stderr).toMatch(/FrameworkError[\s\S]*\n\s+at /);
  });

  it('colours only when asked: a pipe gives plain text, NO_COLOR too, FORCE_COLOR gives ANSI', () => {
    const dir = checkout();
    const run = (env: Record<string, string>) => {
      const { NO_COLOR: _n, FORCE_COLOR: _f, ...rest } = process.env;
      return spawnSync(process.execPath, [MAIN, 'render', '--check'], { cwd: dir, encoding: 'utf8', env: { ...rest, ...env } }).stderr;
    };
    expect(run({})).not.toContain('\u001b[');
    expect(run({ NO_COLOR: '1' })).not.toContain('\u001b[');
    expect(run({ FORCE_COLOR: '1' })).toContain('\u001b[');
  });
});
