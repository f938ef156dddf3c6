import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { locate } from '../src/render/context.ts';
import { FrameworkError } from '../src/shared/problem.ts';
import { gateline, host, read, testdir } from './helpers.ts';

const STUBS = Object.fromEntries(
  ['_all', 'planner', 'implementer', 'reviewer', 'verifier'].map((r) => [`.gateline/overlays/${r}.md`, '<!-- stub -->\n']),
);

describe('finding the host', () => {
  it('walks up from a subfolder to <prefix>/framework-lock.json', () => {
    const dir = host(STUBS);
    mkdirSync(join(dir, 'packages/app/src'), { recursive: true });
    const ctx = locate(join(dir, 'packages/app/src'));
    expect(ctx.mode).toBe('host');
    expect(ctx.root).toBe(dir);
    expect(ctx.coreRoot).toBe(join(dir, '.gateline/core'));
  });

  it('stops at the enclosing git root', () => {
    const outer = host(STUBS);
    const inner = join(outer, 'vendor/other');
    mkdirSync(join(inner, '.git'), { recursive: true });
    expect(() => locate(inner)).toThrow(FrameworkError);
    expect(() => locate(inner)).toThrow(/vendor\/other: no \.gateline\/framework-lock\.json here or above \(up to the git root\)/);
  });

  it('honours --root and --prefix', () => {
    const dir = host({ '.agents/overlays/_all.md': '<!-- s -->\n' }, { prefix: '.agents', adapters: ['gemini-cli'] });
    const elsewhere = testdir();
    const run = gateline(['render', '--root', dir, '--prefix', '.agents'], elsewhere);
    expect(run.code, run.stderr).toBe(0);
    expect(read(dir, '.gemini/agents/planner.md')).toContain('name: planner');
    const check = gateline(['render', '--check', '--root', dir], elsewhere);
    expect(check.code).toBe(1);
    expect(check.stderr).toMatch(/no \.gateline\/framework-lock\.json/);
  });

  it('renders only the adapters the lock selects', () => {
    const dir = host(STUBS, { adapters: ['opencode'] });
    expect(gateline(['render'], dir).code).toBe(0);
    expect(read(dir, '.opencode/agents/reviewer.md')).toContain('"*": deny');
    expect(() => read(dir, '.claude/agents/reviewer.md')).toThrow(/ENOENT/);
  });

  it('removes the files of an adapter the lock no longer selects', () => {
    const dir = host(STUBS, { adapters: ['claude-code', 'opencode'] });
    expect(gateline(['render'], dir).code).toBe(0);
    const lockPath = join(dir, '.gateline/framework-lock.json');
    writeFileSync(lockPath, readFileSync(lockPath, 'utf8').replace('"claude-code",\n    ', ''));
    expect(gateline(['render', '--check'], dir).stderr).toMatch(/\.claude\/agents\/planner\.md: orphan/);
    const run = gateline(['render'], dir);
    expect(run.stdout).toMatch(/removed \.claude\/agents\/planner\.md/);
    expect(gateline(['validate'], dir).code).toBe(0);
  });

  it('a lock naming an adapter the core lacks is a problem', () => {
    const dir = host(STUBS, { adapters: ['cursor'] });
    const run = gateline(['render'], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/\.gateline\/framework-lock\.json: selects adapter 'cursor', which the core does not have/);
  });

  it('a lock whose core leaves the repository is refused', () => {
    const dir = host(STUBS);
    const lockPath = join(dir, '.gateline/framework-lock.json');
    writeFileSync(lockPath, readFileSync(lockPath, 'utf8').replace('"core": "core"', '"core": "../../elsewhere"'));
    const run = gateline(['validate'], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/framework-lock\.json: 'core' must stay inside the repository/);
  });
});

describe('validate in a host', () => {
  it('passes on a fresh host and reports the core matches', () => {
    const dir = host(STUBS);
    expect(gateline(['render'], dir).code).toBe(0);
    const run = gateline(['validate'], dir);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/ok \(15 rendered files fresh, core matches the lock\)/);
  });

  it('reports every edited, missing and added core file by name, and a stale render', () => {
    const dir = host(STUBS);
    expect(gateline(['render'], dir).code).toBe(0);
    writeFileSync(
      join(dir, '.gateline/core/roles/reviewer.md'),
      read(dir, '.gateline/core/roles/reviewer.md').replace('[read, search, shell]', '[read, search, shell, edit, write]'),
    );
    rmSync(join(dir, '.gateline/core/registry/models.yaml'));
    writeFileSync(join(dir, '.gateline/core/src/extra.ts'), 'export {};\n');
    writeFileSync(join(dir, '.gateline/core/__proto__'), 'x\n');
    writeFileSync(join(dir, '.gateline/core/constructor'), 'x\n');
    const run = gateline(['validate'], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/\.gateline\/core\/roles\/reviewer\.md: was edited after vendoring/);
    expect(run.stderr).toMatch(/\.gateline\/core\/registry\/models\.yaml: is missing from the vendored core/);
    expect(run.stderr).toMatch(/\.gateline\/core\/src\/extra\.ts: is not part of the vendored core/);
    expect(run.stderr).toMatch(/\.gateline\/core\/__proto__: is not part of the vendored core/);
    expect(run.stderr).toMatch(/\.gateline\/core\/constructor: is not part of the vendored core/);
    expect(run.stderr).toMatch(/\.claude\/agents\/reviewer\.md: is stale/);
  });

  it('reports a lock whose integrity was edited to match nothing', () => {
    const dir = host(STUBS);
    const lockPath = join(dir, '.gateline/framework-lock.json');
    writeFileSync(lockPath, readFileSync(lockPath, 'utf8').replace(/"integrity": "[^"]+"/, '"integrity": "sha256-AAAA"'));
    const run = gateline(['validate', '--json'], dir);
    expect(run.code).toBe(1);
    const result = JSON.parse(run.stdout);
    expect(result.ok).toBe(false);
    expect(result.problems).toContainEqual(
      expect.objectContaining({ file: '.gateline/framework-lock.json', message: expect.stringMatching(/edited by hand/) }),
    );
  });
});
