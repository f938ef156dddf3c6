import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { dependsOn } from './hook-style.ts';
import { LEFTHOOK_FILES, PRE_COMMIT_CONFIG } from './layout.ts';
import { spliceSet } from './yaml-splice.ts';

// What the installer writes must reach git byte for byte: a repository's formatter or linter
// rewriting the vendored core, the lock or a rendered agent breaks validate on every commit. So it
// adds ignore entries for the tools it finds, and marks the rendered files generated for GitHub.

/** A text file the installer adds its block (or a setting) to, whole content given. */
export interface Protection {
  path: string;
  content: string;
}

const BEGIN = '# >>> gateline (managed by create-gateline: files it writes, kept away from formatters)';
const END = '# <<< gateline';

/** Files where a tool's configuration lives, and the word that shows a hook or script runs it. */
const TOOLS = {
  prettier: {
    packages: ['prettier'],
    files: [
      '.prettierrc',
      '.prettierrc.json',
      '.prettierrc.yaml',
      '.prettierrc.yml',
      '.prettierrc.json5',
      '.prettierrc.js',
      '.prettierrc.cjs',
      '.prettierrc.mjs',
      '.prettierrc.toml',
      'prettier.config.js',
      'prettier.config.cjs',
      'prettier.config.mjs',
      'prettier.config.ts',
      '.prettierignore',
    ],
  },
  biome: { packages: ['@biomejs/biome'], files: ['biome.json', 'biome.jsonc'] },
  'eslint-legacy': {
    packages: [],
    files: ['.eslintrc', '.eslintrc.json', '.eslintrc.js', '.eslintrc.cjs', '.eslintrc.yaml', '.eslintrc.yml', '.eslintignore'],
  },
  'eslint-flat': { packages: [], files: ['eslint.config.js', 'eslint.config.mjs', 'eslint.config.cjs', 'eslint.config.ts'] },
  markdownlint: {
    packages: ['markdownlint-cli'],
    files: [
      '.markdownlint.json',
      '.markdownlint.jsonc',
      '.markdownlint.yaml',
      '.markdownlint.yml',
      '.markdownlintrc',
      '.markdownlintignore',
    ],
  },
} as const;

type Tool = keyof typeof TOOLS;

/** The tools the repository uses: a config file, a dependency, or a hook config or package.json that names them. */
export function detectTools(root: string): Tool[] {
  const mentions = [
    PRE_COMMIT_CONFIG,
    ...LEFTHOOK_FILES,
    '.husky/pre-commit',
    'package.json',
    '.lintstagedrc',
    '.lintstagedrc.json',
    '.lintstagedrc.yaml',
    '.lintstagedrc.yml',
  ]
    .map((f) => read(root, f) ?? '')
    .join('\n');
  return (Object.keys(TOOLS) as Tool[]).filter((tool) => {
    const { packages, files } = TOOLS[tool];
    if (files.some((f) => existsSync(join(root, f))) || packages.some((p) => dependsOn(root, p))) return true;
    const word = tool === 'prettier' ? 'prettier' : tool === 'markdownlint' ? 'markdownlint' : undefined;
    return word !== undefined && new RegExp(`\\b${word}\\b`).test(mentions);
  });
}

/**
 * The ignore entries for the detected tools, `.gitattributes` for the rendered files, and the
 * pre-commit framework's top-level `exclude`; plus notes for what it cannot write safely.
 */
export function protections(
  root: string,
  /** A file's text as the install will leave it (its own edits included), undefined when absent. */
  current: (path: string) => string | undefined,
  prefix: string,
  /** Every file the first render writes, and the workflow: what the tools must leave alone. */
  written: string[],
): { changes: Protection[]; notes: string[] } {
  const tools = detectTools(root);
  const changes: Protection[] = [];
  const notes: string[] = [];
  const paths = [`/${prefix}/`, ...written.map((p) => `/${p}`)];
  const block = (path: string, lines: string[]) => changes.push({ path, content: withBlock(current(path) ?? '', lines) });
  if (tools.includes('prettier')) block('.prettierignore', paths);
  if (tools.includes('markdownlint')) block('.markdownlintignore', paths);
  if (tools.includes('eslint-legacy')) block('.eslintignore', paths);
  if (tools.includes('eslint-flat'))
    notes.push(
      `ESLint's flat config has no ignore file: add { ignores: ['${prefix}/'] } to your eslint.config so eslint --fix leaves the vendored core alone`,
    );
  if (tools.includes('biome')) {
    const path = existsSync(join(root, 'biome.jsonc')) ? 'biome.jsonc' : 'biome.json';
    const edited = withBiomeExcludes(current(path), [`${prefix}/**`, ...written]);
    if (edited === undefined)
      notes.push(
        `${path} is not plain JSON, so create-gateline left it alone: add "!${prefix}/**" and each rendered agent file to its files.includes so Biome leaves them alone`,
      );
    else changes.push({ path, content: edited });
  }
  // npm publishes what .npmignore (else .gitignore) does not exclude: a new .npmignore would stop it
  // reading .gitignore, so only an existing one gets entries; otherwise a note.
  const pkg = parseJson(current('package.json'));
  if (pkg && pkg.private !== true && !Array.isArray(pkg.files)) {
    if (current('.npmignore') !== undefined) block('.npmignore', paths);
    else
      notes.push(
        `package.json has no "files" list, so npm pack would publish ${prefix}/ and the agent files: add a "files" list (or an .npmignore)`,
      );
  }
  block('.gitattributes', [...written.map((p) => `/${p} linguist-generated`), `/${prefix}/core/** linguist-vendored`]);
  const preCommit = current(PRE_COMMIT_CONFIG);
  if (preCommit !== undefined) {
    const edited = withExclude(preCommit, prefix, written);
    if (edited === undefined)
      notes.push(
        `${PRE_COMMIT_CONFIG} has its own top-level exclude: add ${excludeRegex(prefix, written)} to it so its hooks leave gateline's files alone`,
      );
    else changes.push({ path: PRE_COMMIT_CONFIG, content: edited });
  }
  return { changes, notes };
}

/**
 * biome.json with gateline's files excluded: `!` entries in `files.includes` (Biome 2), or
 * `files.ignore` where the config already uses it (Biome 1). Undefined for a file with comments.
 */
function withBiomeExcludes(text: string | undefined, paths: string[]): string | undefined {
  let config: { files?: { includes?: unknown; ignore?: unknown } };
  try {
    config = JSON.parse(text ?? '{}');
  } catch {
    return undefined;
  }
  if (config === null || typeof config !== 'object' || Array.isArray(config)) return undefined;
  const files = { ...config.files };
  const add = (list: unknown, entries: string[], start: string[]) =>
    Array.isArray(list) ? [...list, ...entries.filter((e) => !list.includes(e))] : [...start, ...entries];
  if (Array.isArray(files.ignore)) files.ignore = add(files.ignore, paths, []);
  else
    files.includes = add(
      files.includes,
      paths.map((p) => `!${p}`),
      ['**'],
    );
  const indent = /^([ \t]+)"/m.exec(text ?? '')?.[1] ?? '  ';
  return `${JSON.stringify({ ...config, files }, null, indent)}\n`;
}

/** The pre-commit config with the top-level exclude set to gateline's files; undefined when the user has an exclude of their own. */
export function withExclude(text: string, prefix: string, written: string[]): string | undefined {
  const doc = parseDocument(text);
  if (doc.errors.length) return undefined;
  const current = doc.get('exclude');
  if (current !== undefined && !(typeof current === 'string' && current.startsWith(excludeHead(prefix)))) return undefined;
  return spliceSet(text, doc, ['exclude'], excludeRegex(prefix, written));
}

const escapeRegex = (path: string) => path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const excludeHead = (prefix: string) => `^(?:${escapeRegex(`${prefix}/`)}`;

function excludeRegex(prefix: string, written: string[]): string {
  return `${excludeHead(prefix)}${written.map((p) => `|${escapeRegex(p)}$`).join('')})`;
}

/** Adds (or refreshes) gateline's block in a line-based file, leaving the other lines alone. */
function withBlock(text: string, lines: string[]): string {
  const block = `${BEGIN}\n${lines.join('\n')}\n${END}\n`;
  const start = text.indexOf(BEGIN);
  const stop = start >= 0 ? text.indexOf(END, start) : -1;
  if (start >= 0 && stop >= 0) return `${text.slice(0, start)}${block}${text.slice(stop + END.length).replace(/^\n/, '')}`;
  const base = text === '' || text.endsWith('\n') ? text : `${text}\n`;
  return `${base}${block}`;
}

function parseJson(text: string | undefined): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text ?? '');
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function read(root: string, path: string): string | undefined {
  try {
    return readFileSync(join(root, path), 'utf8');
  } catch {
    return undefined;
  }
}
