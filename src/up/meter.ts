import type { Parsed } from './output.ts';
import type { Registry } from './registry.ts';

// Cost of one run. Runner-reported where the runner prints USD (Claude Code, opencode): that is
// the runner's own list-price estimate, not a bill, so it is never called real. Else the token
// counts times the registry's example prices, marked estimated; unknown without either. The
// registry's prices are ILLUSTRATIVE, so an estimate is only as good as the adopter's pins.

export type Basis = 'runner-reported' | 'estimated' | 'unknown';

export interface Meter {
  tokensIn?: number;
  tokensOut?: number;
  costUsd?: number;
  basis: Basis;
}

export function meter(parsed: Parsed, model: string, registry: Registry): Meter {
  const tokens = { tokensIn: parsed.tokens?.input, tokensOut: parsed.tokens?.output };
  if (parsed.costUsd !== undefined) return { ...tokens, costUsd: parsed.costUsd, basis: 'runner-reported' };
  const pricing = registry.models[model]?.pricing;
  if (parsed.tokens && pricing) {
    const cost = (parsed.tokens.input * pricing.inputPerMtok + parsed.tokens.output * pricing.outputPerMtok) / 1_000_000;
    return { ...tokens, costUsd: cost, basis: 'estimated' };
  }
  return { ...tokens, basis: 'unknown' };
}

/** Adds meters up: the basis of a sum is its weakest part. */
export function addMeters(meters: Meter[]): Meter {
  const rank: Basis[] = ['runner-reported', 'estimated', 'unknown'];
  const sum = (key: 'tokensIn' | 'tokensOut' | 'costUsd') =>
    meters.some((m) => m[key] !== undefined) ? meters.reduce((total, m) => total + (m[key] ?? 0), 0) : undefined;
  const basis = meters.reduce<Basis>((worst, m) => (rank.indexOf(m.basis) > rank.indexOf(worst) ? m.basis : worst), 'runner-reported');
  return { tokensIn: sum('tokensIn'), tokensOut: sum('tokensOut'), costUsd: sum('costUsd'), basis: meters.length ? basis : 'unknown' };
}
