import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FrameworkError } from '../src/shared/problem.ts';
import { type Adapter, loadAdapters } from '../src/up/adapter.ts';
import { loadRegistry } from '../src/up/registry.ts';
import { vendorConflicts } from '../src/up/vendors.ts';
import { REPO, testdir } from './helpers.ts';

/** Loads a registry text; returns the problems as `file:line: message` lines (empty when it loads). */
function problems(text: string): string[] {
  const dir = testdir({ 'models.yaml': text });
  try {
    loadRegistry(join(dir, 'models.yaml'), 'registry/models.yaml');
    return [];
  } catch (error) {
    if (!(error instanceof FrameworkError)) throw error;
    return error.problems.map((p) => `${p.file}:${p.line}: ${p.message}`);
  }
}

const GOOD = `models:
  opus:
    vendor: anthropic
    pricing:
      input_per_mtok: 5.00
      output_per_mtok: 25
pins:
  reviewer:
    avoid_vendor_of: implementer
`;

describe('the model registry', () => {
  it('reads the shipped registry: vendors, prices per million tokens, and the vendor pins (avoid_vendor_of)', () => {
    const registry = loadRegistry(join(REPO, 'registry/models.yaml'), 'registry/models.yaml');
    expect(registry.models.opus).toMatchObject({ vendor: 'anthropic', pricing: { inputPerMtok: 5, outputPerMtok: 25 } });
    expect(registry.models['openrouter/moonshotai/kimi-k2']?.vendor).toBe('moonshotai');
    expect(registry.pins).toMatchObject({ reviewer: { avoidVendorOf: 'implementer' }, verifier: { avoidVendorOf: 'implementer' } });
  });

  it('loads a well-formed registry without problems', () => {
    expect(problems(GOOD)).toEqual([]);
  });

  it('names the line of a model without a vendor', () => {
    const text = GOOD.replace('    vendor: anthropic\n', '');
    expect(problems(text)).toEqual([expect.stringMatching(/^registry\/models\.yaml:2: model 'opus' has no vendor/)]);
  });

  it('names the line of an empty vendor', () => {
    expect(problems(GOOD.replace('vendor: anthropic', "vendor: ''"))).toEqual([
      expect.stringMatching(/^registry\/models\.yaml:3: model 'opus' has no vendor/),
    ]);
  });

  it('names the line of a price that is not a number', () => {
    expect(problems(GOOD.replace('5.00', '"5.00"'))).toEqual([
      expect.stringMatching(/^registry\/models\.yaml:5: model 'opus': input_per_mtok is '5.00'; it must be a non-negative number/),
    ]);
    expect(problems(GOOD.replace('25', 'free'))).toEqual([expect.stringMatching(/^registry\/models\.yaml:6: .*output_per_mtok is 'free'/)]);
  });

  it('names the line of a negative or infinite price, and of a missing one', () => {
    expect(problems(GOOD.replace('5.00', '-1'))).toEqual([expect.stringMatching(/^registry\/models\.yaml:5: .*input_per_mtok is '-1'/)]);
    expect(problems(GOOD.replace('25', '.inf'))).toEqual([expect.stringMatching(/^registry\/models\.yaml:6: .*output_per_mtok/)]);
    expect(problems(GOOD.replace('      output_per_mtok: 25\n', ''))).toEqual([
      expect.stringMatching(/^registry\/models\.yaml:4: .*output_per_mtok is missing/),
    ]);
  });

  it('names the line of an unknown key (a typo would otherwise drop a price silently)', () => {
    expect(problems(GOOD.replace('input_per_mtok', 'input_per_mtoken'))).toEqual([
      expect.stringMatching(/^registry\/models\.yaml:5: .*unknown pricing key 'input_per_mtoken'/),
      expect.stringMatching(/^registry\/models\.yaml:4: .*input_per_mtok is missing/),
    ]);
    expect(problems(`${GOOD}extra: 1\n`)).toEqual([expect.stringMatching(/^registry\/models\.yaml:10: unknown top-level key 'extra'/)]);
  });

  it('names the line of a malformed pin', () => {
    expect(problems(GOOD.replace('avoid_vendor_of: implementer', 'avoid_vendor_of: [a, b]'))).toEqual([
      expect.stringMatching(/^registry\/models\.yaml:9: pin 'reviewer' must be 'avoid_vendor_of: <role>'/),
    ]);
    expect(problems(GOOD.replace('avoid_vendor_of: implementer', 'avoid_vendor_of: reviewer'))).toEqual([
      expect.stringMatching(/^registry\/models\.yaml:9: pin 'reviewer' cannot avoid its own vendor/),
    ]);
  });

  it('reports YAML syntax errors and duplicate keys with their line', () => {
    expect(problems(GOOD.replace('  opus:\n', '  opus: [\n'))).toEqual([expect.stringMatching(/^registry\/models\.yaml:\d+: YAML: /)]);
    expect(problems(`${GOOD}pins: {}\n`)).toEqual([
      expect.stringMatching(/^registry\/models\.yaml:10: YAML: .*[Mm]ap keys must be unique/),
    ]);
  });

  it('reports every problem at once, not only the first', () => {
    const text = GOOD.replace('    vendor: anthropic\n', '').replace('5.00', '-2');
    expect(problems(text)).toHaveLength(1); // without a vendor the entry is skipped: its price is not read
    expect(
      problems(
        `${GOOD.replace('5.00', '-2')}  sonnet:\n    pricing: 3\n`.replace('pins:\n  reviewer:\n    avoid_vendor_of: implementer\n', ''),
      ),
    ).toEqual([expect.stringMatching(/:5: .*input_per_mtok is '-2'/), expect.stringMatching(/:7: model 'sonnet' has no vendor/)]);
  });

  it('says so when the file is missing', () => {
    expect(() => loadRegistry(join(testdir(), 'nope.yaml'), 'registry/models.yaml')).toThrow(/model registry is missing/);
  });
});

describe("the registry's vendors against the manifests' model_vendors", () => {
  const adapters = loadAdapters(REPO, '', ['claude-code', 'codex', 'copilot', 'gemini-cli', 'opencode']);
  const registry = (text: string) => {
    const dir = testdir({ 'models.yaml': text });
    return loadRegistry(join(dir, 'models.yaml'), 'registry/models.yaml');
  };

  it('agree in the shipped files', () => {
    expect(vendorConflicts(adapters, loadRegistry(join(REPO, 'registry/models.yaml'), 'registry/models.yaml'))).toEqual([]);
  });

  it('a model both name with different vendors is a problem naming the manifest line, the registry line, the model and both vendors', () => {
    const claude = readFileSync(join(REPO, 'adapters/claude-code/manifest.json'), 'utf8').split('\n');
    // The key's line inside model_vendors, not the earlier model_map value of the same spelling.
    const line = claude.findIndex((l) => l.includes('"opus": "anthropic"')) + 1;
    expect(line).toBeGreaterThan(claude.findIndex((l) => l.includes('"deep": "opus"')) + 1);
    expect(vendorConflicts(adapters, registry(GOOD.replace('vendor: anthropic', 'vendor: openai')))).toEqual([
      {
        file: 'adapters/claude-code/manifest.json',
        line,
        message:
          "model_vendors says model 'opus' is from vendor 'anthropic', but registry/models.yaml:2 says 'openai': " +
          'the decorrelation pins compare vendors, so make the two agree',
      },
    ]);
  });

  it('a model only one of them names, or named like an Object method, is no conflict', () => {
    expect(vendorConflicts(adapters, registry(GOOD.replace('opus:', 'some-other-model:').replace('anthropic', 'openai')))).toEqual([]);
    const odd = { ...(adapters[0] as Adapter), vendors: { toString: 'anthropic', constructor: 'openai' } };
    expect(vendorConflicts([odd], registry(GOOD))).toEqual([]);
  });
});
