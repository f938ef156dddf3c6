import type { Problem } from '../shared/problem.ts';
import { lineAt } from '../shared/text.ts';
import type { Adapter } from './adapter.ts';
import type { Registry } from './registry.ts';

// A model's vendor is written twice: in each manifest's model_vendors (what the pins compare) and
// in registry/models.yaml (what the prices and the README's decorrelation story rely on). If they
// disagree, one of them is wrong and the pins may keep apart two models of one vendor, or call a
// safe binding a violation. Neither is trusted over the other: gateline up stops and names both.

/** One problem per model spelling whose manifest vendor differs from the registry's. */
export function vendorConflicts(adapters: Adapter[], registry: Registry): Problem[] {
  const problems: Problem[] = [];
  for (const adapter of adapters) {
    for (const [model, vendor] of Object.entries(adapter.vendors)) {
      // Own keys only: a model spelled like an Object method is not in the registry.
      const entry = Object.hasOwn(registry.models, model) ? registry.models[model] : undefined;
      if (!entry || entry.vendor === vendor) continue;
      problems.push({
        file: adapter.manifest.file,
        line: vendorLine(adapter.manifest.text, model),
        message:
          `model_vendors says model '${model}' is from vendor '${vendor}', but ${registry.file}:${entry.line} says '${entry.vendor}': ` +
          'the decorrelation pins compare vendors, so make the two agree',
      });
    }
  }
  return problems;
}

/** The line of the model's key inside model_vendors (the same spelling may appear earlier, as a model_map value). */
function vendorLine(text: string, model: string): number | undefined {
  const block = text.indexOf('"model_vendors"');
  if (block < 0) return undefined;
  const key = new RegExp(`${JSON.stringify(model).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*:`, 'g');
  key.lastIndex = block;
  const at = key.exec(text)?.index;
  return lineAt(text, at ?? block);
}
