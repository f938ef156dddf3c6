import type { Role } from './role.ts';

// The header that marks a file as rendered: gateline rewrites or deletes only files that carry it.

export const RENDERED_MARK = 'by gateline render - DO NOT EDIT.';

export function header(role: Role): string {
  return `RENDERED from roles/${role.name}.md ${RENDERED_MARK} Edit the role spec, then run: gateline render`;
}

/** True when a file carries the header, i.e. gateline wrote it and may rewrite or delete it. */
export function isRendered(text: string): boolean {
  return /^(<!--|#) RENDERED from roles\/[a-z][a-z0-9-]*\.md by gateline render - DO NOT EDIT\./m.test(text);
}
