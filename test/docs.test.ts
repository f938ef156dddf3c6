import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from './helpers.ts';

// The README and docs/ are read on GitHub: a broken link, a table split by a blank line or a
// pointer to a file outside the repository is a bug a reader hits first.

const PAGES = [
  'README.md',
  ...readdirSync(join(REPO, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

const text = (page: string) => readFileSync(join(REPO, page), 'utf8');

/** The text outside fenced code blocks, with inline code blanked, line numbers kept. */
function prose(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line.replace(/`[^`]*`/g, (code) => ' '.repeat(code.length));
  });
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to '-', repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = fenced ? undefined : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    result.add(n === 0 ? base : `${base}-${n}`);
  }
  return result;
}

describe('README and docs/', () => {
  it('finds the pages (the scan works)', () => {
    expect(PAGES).toContain('README.md');
    expect(PAGES).toContain('docs/narrowing.md');
  });

  it('the README stays short: at most 240 lines', () => {
    expect(text('README.md').split('\n').length).toBeLessThanOrEqual(240);
  });

  it('the README names the exact commands CI runs, in its Develop / test section', () => {
    const readme = text('README.md');
    expect(readme).toMatch(/^## Develop \/ test$/m);
    const ci = text('.ci/run')
      .split('\n')
      .filter((line) => /^npm (test|run )/.test(line));
    expect(ci).toEqual(['npm test', 'npm run test:runners']);
    for (const command of ci) expect(readme).toContain(command);
  });

  for (const page of PAGES) {
    it(`${page}: every relative link points to a file (and heading) that exists`, () => {
      const broken: string[] = [];
      prose(text(page)).forEach((line, i) => {
        for (const [, target = ''] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
          if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
          const [path = '', anchor] = target.split('#');
          const file = path ? join(REPO, dirname(page), path) : join(REPO, page);
          if (!existsSync(file)) broken.push(`${page}:${i + 1}: ${target} (no such file)`);
          else if (anchor !== undefined) {
            const ok = statSync(file).isFile() && file.endsWith('.md') && anchors(readFileSync(file, 'utf8')).has(anchor);
            if (!ok) broken.push(`${page}:${i + 1}: ${target} (no heading '#${anchor}' in ${relative(REPO, file)})`);
          }
        }
      });
      expect(broken).toEqual([]);
    });

    it(`${page}: every table has a header row, a separator row, and no blank line inside`, () => {
      const lines = prose(text(page));
      const bad: string[] = [];
      for (let i = 0; i < lines.length; i++) {
        if (!lines[i]?.startsWith('|') || lines[i - 1]?.startsWith('|')) continue;
        // A table starts here: its second line must be the separator, or it renders as text
        // (what a blank line in the middle of a table does to the rows after it).
        const cells = (row: string) => row.split('|').length;
        const separator = lines[i + 1] ?? '';
        if (!/^\|(\s*:?-{3,}:?\s*\|)+\s*$/.test(separator)) bad.push(`${page}:${i + 1}: a table without a separator row`);
        for (let j = i + 1; lines[j]?.startsWith('|'); j++) {
          if (cells(lines[j] as string) !== cells(lines[i] as string)) bad.push(`${page}:${j + 1}: a row with another number of cells`);
        }
      }
      expect(bad).toEqual([]);
    });

    it(`${page}: points at nothing outside the repository`, () => {
      const outside = prose(text(page)).flatMap((line, i) =>
        /\bSPEC\b/.test(line) || /research\/|\bsection \d/i.test(line) ? [`${page}:${i + 1}: ${line.trim()}`] : [],
      );
      expect(outside).toEqual([]);
    });
  }
});
