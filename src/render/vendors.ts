// A manifest's `model_vendors`: which vendor serves each model spelling. `gateline up` compares
// vendors to keep the reviewer and verifier off the implementer's; the renderer never reads it.

/** Reads `model_vendors` (empty when absent); reports each flaw through `bad(key, message)`. */
export function readVendors(value: unknown, bad: (key: string, message: string) => void): Record<string, string> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    bad('model_vendors', 'must be an object');
    return {};
  }
  const entries = Object.entries(value);
  for (const [model, vendor] of entries) {
    if (typeof vendor !== 'string' || vendor.trim() === '') bad('model_vendors', `'${model}' must map to a vendor name`);
  }
  // fromEntries defines own keys, so a model spelled `__proto__` stays a model.
  return Object.fromEntries(entries.filter(([, vendor]) => typeof vendor === 'string'));
}
