import { readFileSync } from 'node:fs';
import { isMap, isScalar, LineCounter, type Node, parseDocument, type YAMLMap } from 'yaml';
import { FrameworkError, type Problem } from '../shared/problem.ts';

// registry/models.yaml: the vendor and price of each model spelling, and the decorrelation pins.
// Read with a real YAML parser: this is installer-side code, the core stays dependency-free.

export interface Pricing {
  /** USD per million input tokens. */
  inputPerMtok: number;
  /** USD per million output tokens. */
  outputPerMtok: number;
}

export interface ModelEntry {
  vendor: string;
  pricing?: Pricing;
  line: number;
}

export interface Pin {
  /** The role whose vendor this role must not share. */
  avoidVendorOf: string;
  line: number;
}

export interface Registry {
  /** Display path, for messages. */
  file: string;
  models: Record<string, ModelEntry>;
  pins: Record<string, Pin>;
}

const MODEL_KEYS = ['vendor', 'openrouter', 'pricing'];
const PRICE_KEYS = ['input_per_mtok', 'output_per_mtok'];

/** Reads the registry; every problem (YAML syntax, a missing vendor, a bad price) names its line. Throws FrameworkError. */
export function loadRegistry(path: string, file: string): Registry {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new FrameworkError([{ file, message: 'the model registry is missing: restore it from the gateline package' }]);
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  // The first syntax error only: the ones after it are usually its echo.
  const syntax = doc.errors[0];
  if (syntax)
    throw new FrameworkError([{ file, line: lines.linePos(syntax.pos[0]).line, message: `YAML: ${syntax.message.split('\n')[0]}` }]);
  const problems: Problem[] = [];
  const lineOf = (node: unknown) => {
    const range = (node as Node | null)?.range;
    return range ? lines.linePos(range[0]).line : 1;
  };
  const bad = (node: unknown, message: string) => problems.push({ file, line: lineOf(node), message });

  const models: Record<string, ModelEntry> = {};
  const pins: Record<string, Pin> = {};
  const root = doc.contents;
  if (!isMap(root)) {
    bad(root, "the registry must be a mapping with 'models' and 'pins'");
    throw new FrameworkError(problems);
  }
  for (const pair of root.items) {
    const key = scalarKey(pair.key);
    if (key !== 'models' && key !== 'pins') bad(pair.key, `unknown top-level key '${key}' (known: models, pins)`);
  }

  for (const [name, keyNode, value] of entries(root.get('models', true), 'models', bad)) {
    if (!isMap(value)) {
      bad(keyNode, `model '${name}' must be a mapping with vendor and pricing`);
      continue;
    }
    for (const [key, k] of entries(value, name, bad))
      if (!MODEL_KEYS.includes(key)) bad(k, `model '${name}': unknown key '${key}' (known: ${MODEL_KEYS.join(', ')})`);
    const vendor = value.get('vendor', true);
    const vendorValue = isScalar(vendor) ? vendor.value : undefined;
    if (typeof vendorValue !== 'string' || vendorValue.trim() === '') {
      bad(vendor ?? keyNode, `model '${name}' has no vendor: add 'vendor: <name>' (the pins compare vendors)`);
      continue;
    }
    const entry: ModelEntry = { vendor: vendorValue, line: lineOf(keyNode) };
    const pricing = value.items.find((pair) => scalarKey(pair.key) === 'pricing');
    if (pricing) {
      const price = readPricing(name, pricing.key, pricing.value, bad);
      if (price) entry.pricing = price;
    }
    models[name] = entry;
  }

  for (const [role, keyNode, value] of entries(root.get('pins', true), 'pins', bad)) {
    const target = isMap(value) ? value.get('avoid_vendor_of', true) : undefined;
    const targetValue = isScalar(target) ? target.value : undefined;
    if (isMap(value)) {
      for (const [key, k] of entries(value, role, bad))
        if (key !== 'avoid_vendor_of') bad(k, `pin '${role}': unknown key '${key}' (known: avoid_vendor_of)`);
    }
    if (typeof targetValue !== 'string' || targetValue === '') {
      bad(target ?? keyNode, `pin '${role}' must be 'avoid_vendor_of: <role>'`);
    } else if (targetValue === role) {
      bad(target, `pin '${role}' cannot avoid its own vendor`);
    } else pins[role] = { avoidVendorOf: targetValue, line: lineOf(keyNode) };
  }

  if (problems.length) throw new FrameworkError(problems);
  return { file, models, pins };
}

function readPricing(model: string, key: unknown, node: unknown, bad: (node: unknown, message: string) => void): Pricing | undefined {
  if (!isMap(node)) {
    bad(node ?? key, `model '${model}': pricing must be a mapping with ${PRICE_KEYS.join(' and ')}`);
    return undefined;
  }
  for (const [found, k] of entries(node, model, bad))
    if (!PRICE_KEYS.includes(found)) bad(k, `model '${model}': unknown pricing key '${found}' (known: ${PRICE_KEYS.join(', ')})`);
  const price = (name: string): number | undefined => {
    const value = node.get(name, true);
    const n = isScalar(value) ? value.value : undefined;
    // A price must be a plain non-negative number: a quoted "3.00", a negative or .nan is a typo, not a price.
    if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) {
      const shown = value === undefined ? 'missing' : `'${isScalar(value) ? String(value.value) : 'not a number'}'`;
      bad(value ?? key, `model '${model}': ${name} is ${shown}; it must be a non-negative number of USD per million tokens`);
      return undefined;
    }
    return n;
  };
  const input = price('input_per_mtok');
  const output = price('output_per_mtok');
  return input === undefined || output === undefined ? undefined : { inputPerMtok: input, outputPerMtok: output };
}

/** The string-keyed items of a mapping, or one problem when the node is not a mapping. */
function entries(node: unknown, what: string, bad: (node: unknown, message: string) => void): [string, unknown, unknown][] {
  if (node === undefined) return [];
  if (!isMap(node)) {
    bad(node, `'${what}' must be a mapping`);
    return [];
  }
  return (node as YAMLMap).items.map((pair) => [scalarKey(pair.key), pair.key, pair.value]);
}

function scalarKey(node: unknown): string {
  return isScalar(node) ? String(node.value) : String(node);
}
