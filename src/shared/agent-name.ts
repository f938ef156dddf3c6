// Agent names as a runner, or a model choosing an agent by name, might confuse them.

/** `gateline up` runs a subagent-mode role through a primary copy of this name (src/up/primary.ts). */
export const PRIMARY_PREFIX = 'gateline-';

// Letters from other scripts that render like the Latin letters of a role name. A model picks a
// subagent by reading its name, so `rеviewer` with a Cyrillic е is the reviewer to it.
// Each letter of FROM is read as the letter of TO at the same place.
const FROM = 'авеёзіїјкмнопрстухѕԁԛԝӏɡıȷℓαβεηικνορτυχω‐‑‒–—−_';
const TO = 'abee3iijkmhonpctyxsdqwlgijlabenikvoptuxw-------';
const LOOK_ALIKES = new Map([...FROM].map((c, i) => [c, TO[i] as string]));

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
    .map((c) => LOOK_ALIKES.get(c) ?? c)
    .join('')
    .trim();
}
