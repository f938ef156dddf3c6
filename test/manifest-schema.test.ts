import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OUTPUT_FORMATS } from '../src/render/headless.ts';
import { listAdapters, loadManifest } from '../src/render/manifest.ts';
import { HOST_CHECKS } from '../src/render/runner.ts';
import { formatProblem, type Problem } from '../src/shared/problem.ts';
import { REPO, testdir } from './helpers.ts';

// The JSON Schema (what editors check) and the loader (what every command checks) describe one
// manifest: the shipped manifests pass both, both know the same keys at every level, and a bad
// runner block fails both.

type Schema = Record<string, unknown>;
const SCHEMA = JSON.parse(readFileSync(join(REPO, 'adapters', 'manifest.schema.json'), 'utf8')) as Schema;
const SHIPPED = listAdapters(join(REPO, 'adapters'));
const shipped = (name: string) => JSON.parse(readFileSync(join(REPO, 'adapters', name, 'manifest.json'), 'utf8'));

/**
 * The part of JSON Schema 2020-12 the manifest schema uses, and nothing else: an unknown keyword
 * throws, so the schema cannot grow a rule this check silently skips. Returns one line per flaw.
 */
function schemaErrors(schema: Schema, value: unknown, at = '$'): string[] {
  const errors: string[] = [];
  const is = (type: string) =>
    type === 'integer'
      ? Number.isInteger(value)
      : type === 'array'
        ? Array.isArray(value)
        : type === 'object'
          ? typeof value === 'object' && value !== null && !Array.isArray(value)
          : typeof value === type;
  const obj = value as Record<string, unknown>;
  for (const [keyword, rule] of Object.entries(schema)) {
    const r = rule as Schema;
    switch (keyword) {
      case '$schema':
      case '$id':
      case 'title':
      case 'description':
      case '$defs':
        break;
      case '$ref': {
        const name = String(rule).replace('#/$defs/', '');
        errors.push(...schemaErrors((SCHEMA.$defs as Record<string, Schema>)[name] as Schema, value, at));
        break;
      }
      case 'type':
        if (!(Array.isArray(rule) ? rule : [rule]).some(is)) errors.push(`${at}: not of type ${rule}`);
        break;
      case 'enum':
        if (!(rule as unknown[]).includes(value)) errors.push(`${at}: not one of ${JSON.stringify(rule)}`);
        break;
      case 'pattern':
        if (typeof value === 'string' && !new RegExp(String(rule), 'u').test(value)) errors.push(`${at}: does not match ${rule}`);
        break;
      case 'minLength':
        if (typeof value === 'string' && [...value].length < Number(rule)) errors.push(`${at}: shorter than ${rule}`);
        break;
      case 'minItems':
        if (Array.isArray(value) && value.length < Number(rule)) errors.push(`${at}: fewer than ${rule} items`);
        break;
      case 'uniqueItems':
        if (Array.isArray(value) && new Set(value.map((v) => JSON.stringify(v))).size !== value.length)
          errors.push(`${at}: repeats an item`);
        break;
      case 'items':
        if (Array.isArray(value)) for (const [i, v] of value.entries()) errors.push(...schemaErrors(r, v, `${at}[${i}]`));
        break;
      case 'required':
        if (is('object')) for (const key of rule as string[]) if (!(key in obj)) errors.push(`${at}: lacks ${key}`);
        break;
      case 'dependentRequired':
        if (is('object')) {
          for (const [key, needs] of Object.entries(rule as Record<string, string[]>)) {
            for (const need of needs) if (key in obj && !(need in obj)) errors.push(`${at}: has ${key} without ${need}`);
          }
        }
        break;
      case 'properties':
        if (is('object')) {
          for (const [key, sub] of Object.entries(r)) if (key in obj) errors.push(...schemaErrors(sub as Schema, obj[key], `${at}.${key}`));
        }
        break;
      case 'additionalProperties':
        if (is('object')) {
          const known = Object.keys((schema.properties ?? {}) as Schema);
          for (const key of Object.keys(obj).filter((k) => !known.includes(k))) {
            if (rule === false) errors.push(`${at}: unknown key ${key}`);
            else errors.push(...schemaErrors(r, obj[key], `${at}.${key}`));
          }
        }
        break;
      case 'propertyNames':
        if (is('object')) for (const key of Object.keys(obj)) errors.push(...schemaErrors(r, key, `${at} key ${key}`));
        break;
      case 'allOf':
        for (const sub of rule as Schema[]) errors.push(...schemaErrors(sub, value, at));
        break;
      case 'anyOf':
        if (!(rule as Schema[]).some((sub) => schemaErrors(sub, value, at).length === 0)) errors.push(`${at}: matches none of anyOf`);
        break;
      case 'oneOf':
        if ((rule as Schema[]).filter((sub) => schemaErrors(sub, value, at).length === 0).length !== 1) {
          errors.push(`${at}: does not match exactly one of oneOf`);
        }
        break;
      case 'not':
        if (schemaErrors(r, value, at).length === 0) errors.push(`${at}: matches what is excluded`);
        break;
      default:
        throw new Error(`the schema uses '${keyword}', which this check does not implement: add it here`);
    }
  }
  return errors;
}

/** Loads one manifest, written to a temporary adapters folder, through the one loader. */
function load(manifest: unknown): { ok: boolean; problems: string[] } {
  const dir = testdir({ 'x/manifest.json': JSON.stringify(manifest, null, 2) });
  const problems: Problem[] = [];
  const ok = loadManifest(dir, 'adapters', 'x', problems) !== undefined;
  return { ok, problems: problems.map(formatProblem) };
}

/** A valid manifest whose runner block holds every key. */
function full(): Record<string, unknown> {
  const m = shipped('gemini-cli');
  m.adapter = 'x';
  m.runner.home_env = 'GEMINI_HOME';
  m.headless.session_field = 'session_id';
  m.headless.resume_args = ['-p', '{prompt}', '--resume', '{session}'];
  m.headless.flags['--resume'] = ['{session}'];
  m.headless.positionals = [];
  m.headless.approval_names = {};
  return m;
}

/** The loader's list of known keys at one level, read from its refusal of an unknown key. */
function loaderKeys(edit: (m: Record<string, unknown>) => void, refusal: RegExp): string[] {
  const m = full();
  edit(m);
  const { problems } = load(m);
  const line = problems.find((p) => refusal.test(p));
  expect(line, problems.join('\n')).toBeDefined();
  return (/\(known: ([^)]*)\)/.exec(line ?? '')?.[1] ?? '').split(', ').sort();
}

const keysOf = (schema: unknown) => Object.keys((schema as { properties: Schema }).properties).sort();
const props = (schema: unknown, key: string) => (schema as { properties: Record<string, Schema> }).properties[key];

describe('the manifest schema and the loader agree', () => {
  it('every shipped manifest passes both', () => {
    expect(SHIPPED.length).toBeGreaterThan(0);
    for (const name of SHIPPED) {
      expect(schemaErrors(SCHEMA, shipped(name)), name).toEqual([]);
      const problems: Problem[] = [];
      expect(loadManifest(join(REPO, 'adapters'), 'adapters', name, problems), problems.map(formatProblem).join('\n')).toBeDefined();
    }
    expect(schemaErrors(SCHEMA, full())).toEqual([]);
    expect(load(full())).toEqual({ ok: true, problems: [] });
  });

  it('both know the same keys, at every level', () => {
    const runner = props(SCHEMA, 'runner');
    const headless = props(SCHEMA, 'headless');
    const hostCheck = (props(runner, 'host_checks') as { items: Schema }).items;
    const levels: [string, string[], string[]][] = [
      ['top level', keysOf(SCHEMA), loaderKeys((m) => Object.assign(m, { zzz: 1 }), /'zzz' is not a manifest key/)],
      ['headless', keysOf(headless), loaderKeys((m) => Object.assign(m.headless as object, { zzz: 1 }), /unknown key 'zzz'/)],
      ['runner', keysOf(runner), loaderKeys((m) => Object.assign(m.runner as object, { zzz: 1 }), /'zzz' in 'runner' is not a runner key/)],
      [
        'runner.agents',
        keysOf(props(runner, 'agents')),
        loaderKeys((m) => Object.assign((m.runner as { agents: object }).agents, { zzz: 1 }), /unknown key 'zzz'/),
      ],
      [
        'runner.host_checks[]',
        keysOf(hostCheck),
        loaderKeys((m) => Object.assign((m.runner as { host_checks: object[] }).host_checks[0] as object, { zzz: 1 }), /unknown key 'zzz'/),
      ],
    ];
    for (const [level, schemaKeys, loaded] of levels) expect(loaded, level).toEqual(schemaKeys);
  });

  it('both know the same output formats, host checks and tools styles', () => {
    expect((props(props(SCHEMA, 'headless'), 'output') as { enum: string[] }).enum).toEqual([...OUTPUT_FORMATS]);
    const hostCheck = (props(props(SCHEMA, 'runner'), 'host_checks') as { items: Schema }).items;
    expect((props(hostCheck, 'check') as { enum: string[] }).enum).toEqual([...HOST_CHECKS]);
    const styles = (props(SCHEMA, 'tools_style') as { enum: string[] }).enum;
    const refused = load({ ...full(), tools_style: 'zzz' }).problems.join('\n');
    expect(/must be one of ([a-z, -]+)/.exec(refused)?.[1]?.split(', ')).toEqual(styles);
  });

  it('both refuse a bad runner or headless block, and the loader names the line', () => {
    const bad: [string, (m: Record<string, unknown>) => void, RegExp][] = [
      ['no package', (m) => delete (m.runner as Schema).package, /'runner' needs 'package': the runner's npm package/],
      [
        'a proven version that is not one',
        (m) => Object.assign(m.runner as object, { proven: 'latest' }),
        /'proven' in 'runner' must be the version/,
      ],
      [
        'an npm name with spaces',
        (m) => Object.assign(m.runner as object, { package: 'my runner' }),
        /'package' in 'runner' must be an npm package/,
      ],
      ['a home outside ~', (m) => Object.assign(m.runner as object, { home: '/etc/gemini' }), /'home' in 'runner' must be a folder under/],
      ['no agent folders', (m) => delete (m.runner as Schema).agents, /'runner' needs 'agents'/],
      [
        'an agent folder leaving the repository',
        (m) => Object.assign((m.runner as { agents: object }).agents, { dirs: ['../x'] }),
        /'dirs' in 'runner' must stay inside the repository/,
      ],
      [
        'a host check gateline does not know',
        (m) => Object.assign((m.runner as { host_checks: object[] }).host_checks[0] as object, { check: 'vibes' }),
        /'host_checks' in 'runner' has the check "vibes", which gateline doctor does not know/,
      ],
      [
        'host checks without a home',
        (m) => delete (m.runner as Schema).home,
        /'host_checks' in 'runner' name files in the runner's 'home'/,
      ],
      ['an unknown output format', (m) => Object.assign(m.headless as object, { output: 'xml' }), /'output' must be one of claude-json/],
      ['a runner that is not an object', (m) => Object.assign(m, { runner: 'gemini' }), /'runner' must be an object/],
    ];
    for (const [what, edit, message] of bad) {
      const m = full();
      edit(m);
      expect(schemaErrors(SCHEMA, m), what).not.toEqual([]);
      const { ok, problems } = load(m);
      expect(ok, what).toBe(false);
      expect(problems.join('\n'), what).toMatch(message);
      expect(problems.join('\n'), what).toMatch(/^adapters\/x\/manifest\.json:\d+: /);
    }
  });
});

describe('no code branches on an adapter name', () => {
  it('src/ never quotes the name of a shipped adapter: runner facts live in the manifests', () => {
    const quoted = new RegExp(`['"\`](${SHIPPED.join('|')})['"\`]`);
    const found: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (/\.(ts|mjs|js)$/.test(entry.name)) {
          for (const [i, line] of readFileSync(path, 'utf8').split('\n').entries()) {
            if (quoted.test(line)) found.push(`${relative(REPO, path)}:${i + 1}: ${line.trim()}`);
          }
        }
      }
    };
    walk(join(REPO, 'src'));
    expect(SHIPPED).toContain('codex');
    expect(found).toEqual([]);
  });
});
