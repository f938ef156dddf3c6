// The reviewer and verifier put their verdict on a line of its own (roles/reviewer.md,
// roles/verifier.md): `VERDICT: APPROVE|REQUEST_CHANGES` and `VERDICT: PASS|FAIL`. Only such a
// line counts, so the word in prose ("the verdict: pass") never decides a run. Bold or code
// markers around the line are tolerated: models add them despite the instruction.

/** The first verdict line's value (e.g. 'PASS'), or undefined when the report has none. */
export function readVerdict(text: string): string | undefined {
  for (const line of text.split('\n')) {
    const match = /^VERDICT:\s*([A-Z_]+)$/.exec(line.trim().replace(/^[*_`#>\s]+|[*_`\s]+$/g, ''));
    if (match) return match[1];
  }
  return undefined;
}
