// Emits YAML scalars for frontmatter. JSON strings are valid YAML double-quoted scalars,
// so anything that is not obviously plain is written as JSON.

const PLAIN = /^[A-Za-z0-9][A-Za-z0-9 _.,;()/'+-]*$/;
const SPECIAL = /^(true|false|null|yes|no|on|off|y|n|~|[-+]?[0-9][0-9_.eE+-]*)$/i;

export function yamlScalar(value: string): string {
  if (PLAIN.test(value) && !value.endsWith(' ') && !SPECIAL.test(value)) return value;
  return JSON.stringify(value);
}
