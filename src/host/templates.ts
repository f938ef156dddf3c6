import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// Files the installer writes into a host come from templates/ in the package, with
// `{{name}}` placeholders filled in.

export function template(packageRoot: string, name: string, values: Record<string, string>): string {
  const text = readFileSync(join(packageRoot, 'templates', name), 'utf8');
  return text.replace(/\{\{(\w+)\}\}/g, (_, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`template ${name}: no value for {{${key}}}`);
    return value;
  });
}

/** The first line that marks a file as the installer's own, so a re-run may rewrite it. */
export const MANAGED_MARK = 'Managed by create-gateline';
