import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FrameworkError } from '../src/shared/problem.ts';
import { type DispatchAdapter, type DispatchInput, dispatch, VendorPinError } from '../src/up/dispatch.ts';
import { REPO } from './helpers.ts';

// The dispatch seam is pure: these tests feed it the shipped manifests' data and check the bindings.

function shipped(name: string): DispatchAdapter {
  const m = JSON.parse(readFileSync(join(REPO, 'adapters', name, 'manifest.json'), 'utf8'));
  return {
    name,
    file: `adapters/${name}/manifest.json`,
    roles: m.roles,
    modelMap: m.model_map,
    modelOverrides: m.model_overrides ?? {},
    vendors: m.model_vendors ?? {},
  };
}

const ROLES = [
  { name: 'planner', profile: 'deep' },
  { name: 'implementer', profile: 'balanced' },
  { name: 'reviewer', profile: 'deep' },
  { name: 'verifier', profile: 'balanced' },
];
const PINS = { reviewer: { avoidVendorOf: 'implementer' }, verifier: { avoidVendorOf: 'implementer' } };

function input(adapters: (string | DispatchAdapter)[], forced: Record<string, string> = {}): DispatchInput {
  return { adapters: adapters.map((a) => (typeof a === 'string' ? shipped(a) : a)), roles: ROLES, pins: PINS, forced };
}

const table = (adapters: (string | DispatchAdapter)[], forced?: Record<string, string>) =>
  dispatch(input(adapters, forced)).bindings.map((b) => `${b.role} ${b.adapter} ${b.model} ${b.vendor} ${b.pin}`);

function pinError(adapters: (string | DispatchAdapter)[], forced?: Record<string, string>): VendorPinError {
  try {
    dispatch(input(adapters, forced));
  } catch (error) {
    if (error instanceof VendorPinError) return error;
    throw error;
  }
  throw new Error('expected a VendorPinError');
}

describe('dispatch with one adapter: the pin is advisory', () => {
  it('binds every role to it and marks the broken pins advisory', () => {
    expect(table(['claude-code'])).toEqual([
      'planner claude-code opus anthropic n/a',
      'implementer claude-code sonnet anthropic n/a',
      'reviewer claude-code opus anthropic advisory',
      'verifier claude-code sonnet anthropic advisory',
    ]);
  });

  it('returns one advisory per pinned role whose vendor pin one adapter cannot keep, naming both sides', () => {
    const { advisories } = dispatch(input(['claude-code']));
    expect(advisories).toHaveLength(2);
    expect(advisories[0]).toMatch(
      /^vendor-pin advisory: the reviewer runs on anthropic \(claude-code, opus\), the same vendor as the implementer \(claude-code, sonnet\)/,
    );
    expect(advisories[1]).toMatch(/^vendor-pin advisory: the verifier runs on anthropic/);
    expect(advisories.join('\n')).toMatch(/Add an --adapter of another vendor/);
  });

  it('marks a pin ok when one adapter still keeps the vendors apart (copilot maps profiles to two vendors)', () => {
    expect(table(['copilot'])).toEqual([
      'planner copilot claude-opus-4.5 anthropic n/a',
      'implementer copilot gpt-5.1 openai n/a',
      'reviewer copilot claude-opus-4.5 anthropic ok',
      'verifier copilot gpt-5.1 openai advisory',
    ]);
    expect(dispatch(input(['copilot'])).advisories).toEqual([expect.stringMatching(/the verifier runs on openai/)]);
  });

  it('gives no advisory when no pin is configured', () => {
    const result = dispatch({ ...input(['claude-code']), pins: {} });
    expect(result.advisories).toEqual([]);
    expect(result.bindings.every((b) => b.pin === 'n/a')).toBe(true);
  });
});

describe('dispatch with several adapters: the pins are enforced', () => {
  it('prefers the first adapter that satisfies every pin', () => {
    expect(table(['opencode', 'claude-code'])).toEqual([
      'planner opencode openrouter/moonshotai/kimi-k2 moonshotai n/a',
      'implementer opencode openrouter/moonshotai/kimi-k2 moonshotai n/a',
      'reviewer claude-code opus anthropic ok',
      'verifier claude-code sonnet anthropic ok',
    ]);
    expect(table(['claude-code', 'opencode'])).toEqual([
      'planner claude-code opus anthropic n/a',
      'implementer claude-code sonnet anthropic n/a',
      'reviewer opencode openrouter/moonshotai/kimi-k2 moonshotai ok',
      'verifier opencode openrouter/moonshotai/kimi-k2 moonshotai ok',
    ]);
    expect(dispatch(input(['claude-code', 'opencode'])).advisories).toEqual([]);
  });

  it('takes the first adapter, in --adapter order, among those that satisfy the pins', () => {
    // Copilot comes first: it keeps the verifier (gpt-5.1, openai); its reviewer model is Anthropic's,
    // the implementer's vendor, so the reviewer goes on to opencode.
    expect(table(['claude-code', 'copilot', 'opencode']).slice(2)).toEqual([
      'reviewer opencode openrouter/moonshotai/kimi-k2 moonshotai ok',
      'verifier copilot gpt-5.1 openai ok',
    ]);
  });

  it('moves an earlier role when the greedy choice cannot meet a pin (codex runs only the implementer)', () => {
    expect(table(['claude-code', 'codex'])).toEqual([
      'planner claude-code opus anthropic n/a',
      'implementer codex gpt-6.1-terra openai n/a',
      'reviewer claude-code opus anthropic ok',
      'verifier claude-code sonnet anthropic ok',
    ]);
  });

  it('raises VendorPinError when no binding keeps the vendors apart, naming role, adapter, model and vendor on both sides', () => {
    const error = pinError(['claude-code', 'opencode'], { implementer: 'claude-code', reviewer: 'claude-code' });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('VendorPinError');
    expect(error.binding).toMatchObject({ role: 'reviewer', adapter: 'claude-code', model: 'opus', vendor: 'anthropic' });
    expect(error.avoided).toMatchObject({ role: 'implementer', adapter: 'claude-code', model: 'sonnet', vendor: 'anthropic' });
    expect(error.message).toMatch(/the reviewer must not share a model vendor with the implementer/);
    expect(error.message).toMatch(/implementer: +adapter claude-code, model sonnet, vendor anthropic/);
    expect(error.message).toMatch(/reviewer: +adapter claude-code, model opus, vendor anthropic/);
    expect(error.message).toMatch(
      /Fix: add an --adapter whose model for the reviewer comes from another vendor than anthropic \(configured: claude-code, opencode\)/,
    );
    expect(error.message).toMatch(/or change --bind reviewer=claude-code/);
  });

  it('a forced verifier binding can trigger it too', () => {
    const error = pinError(['opencode', 'claude-code'], { implementer: 'opencode', verifier: 'opencode' });
    expect(error.binding).toMatchObject({ role: 'verifier', adapter: 'opencode', vendor: 'moonshotai' });
    expect(error.message).toMatch(/change --bind verifier=opencode/);
  });

  it('raises it between two adapters of the same vendor, suggesting a --bind when nothing was forced', () => {
    const other = { ...shipped('claude-code'), name: 'claude-code-2', file: 'adapters/claude-code-2/manifest.json' };
    const error = pinError(['claude-code', other]);
    expect(error.binding).toMatchObject({ role: 'reviewer', adapter: 'claude-code' });
    expect(error.message).toMatch(/configured: claude-code, claude-code-2\), or --bind reviewer=<an adapter of another vendor>/);
  });

  it('honours a --bind that keeps the pins, and moves the rest around it', () => {
    expect(table(['claude-code', 'opencode'], { reviewer: 'opencode', verifier: 'opencode' }).slice(1)).toEqual([
      'implementer claude-code sonnet anthropic n/a',
      'reviewer opencode openrouter/moonshotai/kimi-k2 moonshotai ok',
      'verifier opencode openrouter/moonshotai/kimi-k2 moonshotai ok',
    ]);
    expect(table(['claude-code', 'opencode'], { planner: 'opencode' })[0]).toBe(
      'planner opencode openrouter/moonshotai/kimi-k2 moonshotai n/a',
    );
  });
});

describe('dispatch inputs', () => {
  it('takes model_overrides before model_map', () => {
    const custom = { ...shipped('claude-code'), modelOverrides: { reviewer: 'haiku' } };
    expect(table([custom, 'opencode'])[2]).toBe('reviewer opencode openrouter/moonshotai/kimi-k2 moonshotai ok');
    expect(table([custom])[2]).toBe('reviewer claude-code haiku anthropic advisory');
  });

  it('a model without a vendor is an error naming the manifest and the fix', () => {
    const custom = { ...shipped('claude-code'), vendors: { opus: 'anthropic', haiku: 'anthropic' } };
    expect(() => dispatch(input([custom]))).toThrow(FrameworkError);
    expect(() => dispatch(input([custom]))).toThrow(
      /adapters\/claude-code\/manifest\.json: model 'sonnet' \(the implementer's\) has no vendor in model_vendors: add "sonnet": "<vendor>"/,
    );
  });

  it('a profile without a model is an error', () => {
    const custom = { ...shipped('claude-code'), modelMap: { deep: 'opus' } };
    expect(() => dispatch(input([custom]))).toThrow(/no model for the implementer: its capability_profile 'balanced' is not in model_map/);
  });

  it('reads models and vendors from own keys only: a role or profile named like an Object method has no model', () => {
    const custom = { ...shipped('claude-code'), roles: ['constructor', 'planner'] };
    const run =
      (roles: { name: string; profile: string }[], adapter = custom) =>
      () =>
        dispatch({ adapters: [adapter], roles, pins: {} });
    expect(run([{ name: 'planner', profile: 'toString' }])).toThrow(
      /no model for the planner: its capability_profile 'toString' is not in model_map/,
    );
    expect(run([{ name: 'constructor', profile: 'hasOwnProperty' }])).toThrow(/no model for the constructor/);
    // A model spelled like an Object method is a model without a vendor, not a function.
    const odd = { ...custom, modelMap: { deep: 'toString' } };
    expect(run([{ name: 'planner', profile: 'deep' }], odd)).toThrow(/model 'toString' \(the planner's\) has no vendor in model_vendors/);
  });

  it("points a VendorPinError at the broken pin in the registry when it knows the registry's path", () => {
    const error = pinError(['claude-code', 'copilot'], { implementer: 'claude-code', reviewer: 'claude-code' });
    expect(error.problem).toMatchObject({ file: '--adapter', message: error.message });
    let caught: unknown;
    try {
      dispatch({
        ...input(['claude-code', 'copilot'], { implementer: 'claude-code', reviewer: 'claude-code' }),
        pins: { reviewer: { avoidVendorOf: 'implementer', line: 61 } },
        pinsFile: 'registry/models.yaml',
      });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(VendorPinError);
    expect((caught as VendorPinError).problem).toMatchObject({ file: 'registry/models.yaml', line: 61 });
  });

  it('a role binds only to an adapter whose manifest lists it', () => {
    expect(() => dispatch(input(['codex']))).toThrow(/no configured adapter runs the planner \(codex runs implementer\)/);
    expect(() => dispatch(input(['claude-code', 'codex'], { reviewer: 'codex' }))).toThrow(
      /adapters\/codex\/manifest\.json: --bind reviewer=codex: codex does not run the reviewer \(its roles: implementer\)/,
    );
  });

  it('a --bind to an adapter that is not configured is an error', () => {
    expect(() => dispatch(input(['claude-code'], { reviewer: 'opencode' }))).toThrow(
      /--bind: reviewer=opencode: 'opencode' is not one of the --adapter values/,
    );
  });

  it('ignores a pin on a role outside the pipeline', () => {
    const result = dispatch({ ...input(['claude-code']), pins: { reviewer: { avoidVendorOf: 'auditor' } } });
    expect(result.bindings.map((b) => b.pin)).toEqual(['n/a', 'n/a', 'n/a', 'n/a']);
  });
});
