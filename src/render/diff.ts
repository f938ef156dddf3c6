// A short diff for `render --check`: the common head and tail are skipped and the changed
// middle is shown, capped, so a reader sees what drifted without a diff library.

export function shortDiff(before: string, after: string, max = 8): string[] {
  const a = before.split('\n');
  const b = after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const removed = a.slice(head, a.length - tail);
  const added = b.slice(head, b.length - tail);
  const out = [`@@ line ${head + 1} @@`];
  const clip = (lines: string[], sign: string) => {
    out.push(...lines.slice(0, max).map((l) => `${sign}${l}`));
    if (lines.length > max) out.push(`${sign}... ${lines.length - max} more line(s)`);
  };
  clip(removed, '-');
  clip(added, '+');
  return out;
}
