import { CAPABILITIES, type Capability, capability, ROLE_NAME } from '../shared/capabilities.ts';
import type { Problem } from '../shared/problem.ts';
import { readInput } from '../shared/text.ts';
import { parseFrontmatter } from './frontmatter.ts';
import { rules } from './rules.ts';

export interface Role {
  name: string;
  /** Display path of the spec, relative to the repository root. */
  file: string;
  dispatch: string;
  capabilities: Capability[];
  profile: string;
  /**
   * The command prefixes the role may run through its shell, when it lists them (`commands`):
   * rendered as each runner's own command rules instead of the bare shell tool.
   */
  commands?: string[];
  body: string;
}

const KEYS = ['dispatch', 'capabilities', 'capability_profile'];
const OPTIONAL_KEYS = ['commands'];
const ALLOWED_KEYS = new Set([...KEYS, ...OPTIONAL_KEYS]);
const PROFILE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * Loads `roles/<name>.md`; pushes every problem it finds and returns undefined if there is any.
 * `listed`: see readInput.
 */
export function loadRole(
  rolesDir: string,
  displayDir: string,
  name: string,
  problems: Problem[],
  { listed = false } = {},
): Role | undefined {
  const file = `${displayDir}/${name}.md`;
  if (!ROLE_NAME.test(name)) {
    problems.push({ file, message: `role name '${name}' must match ${ROLE_NAME.source}` });
    return undefined;
  }
  const before = problems.length;
  const text = readInput(`${rolesDir}/${name}.md`, file, problems, { listed });
  if (text === undefined) {
    if (problems.length === before)
      problems.push({ file, message: `role spec not found: create it, or remove '${name}' from the adapter's roles` });
    return undefined;
  }
  const fm = parseFrontmatter(text, file, problems);
  if (!fm) return undefined;

  for (const [key, { line }] of fm.fields) {
    if (!ALLOWED_KEYS.has(key))
      problems.push({ file, line, message: `unknown key '${key}' (allowed: ${[...KEYS, ...OPTIONAL_KEYS].join(', ')})` });
  }
  for (const key of KEYS) {
    if (!fm.fields.has(key)) problems.push({ file, line: 1, message: `missing required key '${key}'` });
  }
  const dispatch = fm.fields.get('dispatch');
  const caps = fm.fields.get('capabilities');
  const profile = fm.fields.get('capability_profile');
  if (dispatch && typeof dispatch.value !== 'string') {
    problems.push({ file, line: dispatch.line, message: "'dispatch' must be one line of text, not a list" });
  } else if (dispatch) {
    const value = [{ file, line: dispatch.line, what: "'dispatch'", value: dispatch.value as string }];
    problems.push(...rules.noControlCharacters(value), ...rules.noFenceInValues(value));
  }
  const capabilities: Capability[] = [];
  if (caps) {
    if (!Array.isArray(caps.value)) {
      problems.push({ file, line: caps.line, message: "'capabilities' must be a list, e.g. [read, search]" });
    } else {
      for (const name of caps.value) {
        const cap = capability(name);
        if (!cap) {
          problems.push({ file, line: caps.line, message: `unknown capability '${name}' (known: ${CAPABILITIES.join(', ')})` });
        } else if (capabilities.includes(cap)) {
          problems.push({ file, line: caps.line, message: `capability '${cap}' is listed twice` });
        } else capabilities.push(cap);
      }
    }
  }
  const commands = fm.fields.get('commands');
  if (commands && !Array.isArray(commands.value)) {
    problems.push({ file, line: commands.line, message: "'commands' must be a list of command prefixes, e.g. [git diff, npm test]" });
  } else if (commands) {
    problems.push(...rules.commandPrefixesArePlain({ file, line: commands.line, commands: commands.value as string[], capabilities }));
  }
  if (profile && (typeof profile.value !== 'string' || !PROFILE.test(profile.value))) {
    problems.push({ file, line: profile.line, message: "'capability_profile' must be one name, e.g. deep" });
  }
  if (problems.length > before) return undefined;
  const body = fm.body.replace(/^\n+/, '').trimEnd();
  if (body === '') problems.push({ file, message: 'the role has no body: write the prompt below the frontmatter' });
  if (problems.length > before) return undefined;
  return {
    name,
    file,
    dispatch: dispatch?.value as string,
    capabilities,
    profile: profile?.value as string,
    ...(commands ? { commands: commands.value as string[] } : {}),
    body,
  };
}
