// A rendered file a formatter rewrote differs from the render only in layout: white space, the
// kind of quotes, list bullets. Saying so points to the cause (a formatter that should skip the
// file), where "stale" would send the user to render again, and the formatter would undo it.

/** The text with every difference a formatter makes without changing meaning taken out. */
function shape(text: string): string {
  return text
    .replace(/^(\s*)[*+](?=\s)/gm, '$1-')
    .replace(/['`]/g, '"')
    .replace(/\s+/g, '');
}

/** True when `current` and `next` differ, but only in formatting. */
export function looksReformatted(current: string | undefined, next: string | undefined): boolean {
  return current !== undefined && next !== undefined && current !== next && shape(current) === shape(next);
}
