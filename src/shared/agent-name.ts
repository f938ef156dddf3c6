// Agent names as a runner, or a model choosing an agent by name, might confuse them.

/** `gateline up` runs a subagent-mode role through a primary copy of this name (src/up/primary.ts). */
export const PRIMARY_PREFIX = 'gateline-';

// Letters from other scripts that render like the Latin letters of a role name. A model picks a
// subagent by reading its name, so `rеviewer` with a Cyrillic е is the reviewer to it.
const LOOK_ALIKES: Record<string, string> = {
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  з: '3',
  і: 'i',
  ї: 'i',
  ј: 'j',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  п: 'n',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  ѕ: 's',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  ӏ: 'l',
  ɡ: 'g',
  ı: 'i',
  ȷ: 'j',
  ℓ: 'l',
  α: 'a',
  β: 'b',
  ε: 'e',
  η: 'n',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ω: 'w',
  '‐': '-',
  '‑': '-',
  '‒': '-',
  '–': '-',
  '—': '-',
  '−': '-',
  _: '-',
};

/**
 * A name folded so that names a reader would take for one another compare equal: compatibility
 * forms (full-width letters), marks and invisible format characters dropped, case ignored,
 * look-alike letters mapped, '_' read as '-', spaces at the ends trimmed.
 */
export function foldName(name: string): string {
  const bare = name
    .normalize('NFKD')
    .replace(/[\p{M}\p{Cf}]/gu, '')
    .toLowerCase();
  return [...bare]
    .map((c) => LOOK_ALIKES[c] ?? c)
    .join('')
    .trim();
}
