import type { Role } from './role.ts';

// The header that marks a file as rendered: gateline rewrites or deletes only files that carry
// it, in its place (right after the frontmatter, or on the first line of a TOML file).

export const RENDERED_MARK = 'by gateline render - DO NOT EDIT.';

/**
 * In a host the role spec is part of the vendored core, which validate refuses edited: the way to
 * change an agent there is its overlay, and the command is the vendored core's own entry.
 */
export function header(role: Role, host?: { prefix: string; coreDisplay: string }): string {
  const edit = host
    ? `Edit ${host.prefix}/overlays/${role.name}.md (or _all.md), then run: node ${host.coreDisplay}/src/gateline.mjs render`
    : 'Edit the role spec, then run: gateline render';
  return `RENDERED from roles/${role.name}.md ${RENDERED_MARK} ${edit}`;
}

const HEADER = new RegExp(`^(?:<!-- |# )RENDERED from roles/([a-z][a-z0-9-]*)\\.md ${RENDERED_MARK.replaceAll('.', '\\.')} `);

/** The role a rendered file was rendered from, or undefined when the file carries no header in place. */
export function renderedRole(text: string): string | undefined {
  let line: string | undefined;
  if (text.startsWith('# ')) line = text.slice(0, text.indexOf('\n'));
  else if (text.startsWith('---\n')) {
    const close = text.indexOf('\n---\n', 3);
    // Blank lines before the header are a formatter's (prettier adds one): the file is still ours.
    let at = close + 5;
    while (text[at] === '\n') at++;
    if (close >= 0) line = text.slice(at, text.indexOf('\n', at));
  }
  return line === undefined ? undefined : HEADER.exec(line)?.[1];
}

/** True when gateline wrote the file and may rewrite or delete it. */
export function isRendered(text: string): boolean {
  return renderedRole(text) !== undefined;
}
