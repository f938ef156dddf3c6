import type { Problem } from '../../shared/problem.ts';
import { lineOfJsonKey } from '../../shared/text.ts';
import { denySettingsFlaw, PLACEHOLDER_KINDS, SAFE_FLAGS, SAFE_POSITIONALS } from '../flags.ts';
import { type ManifestInput, rule } from './rule.ts';

// The rules that keep a headless argv to the flags gateline knows are safe (flags.ts): the
// manifest's allow-list (headless.flags, headless.positionals) holds only safe flags with safe
// values, and the args, resume_args and grants are made only of what it declares.

interface Raw {
  args?: unknown;
  resume_args?: unknown;
  grants?: unknown;
  command_grant?: unknown;
  flags?: unknown;
  positionals?: unknown;
  approval_names?: unknown;
}

const at = (m: ManifestInput, key: string, message: string): Problem => ({
  file: m.file,
  line: lineOfJsonKey(m.text, key),
  message: `'${key}' ${message}`,
});

const record = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const list = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** Why one declared flag and its values are not safe, or undefined. */
function declarationFlaw(flag: string, values: string[]): string | undefined {
  const safe = SAFE_FLAGS[flag];
  if (!safe || !Object.hasOwn(SAFE_FLAGS, flag))
    return `declares '${flag}', which gateline does not know as safe (known: ${Object.keys(SAFE_FLAGS).join(', ')})`;
  if (safe.kind === 'none') return values.length ? `'${flag}' takes no value, so its values must be []` : undefined;
  if (values.length === 0) return `'${flag}' takes a value: list the values it may take`;
  for (const value of values) {
    // A placeholder may sit in a template (`(as {role}) {prompt}`) that cannot be read as a flag.
    if (PLACEHOLDER_KINDS.includes(safe.kind) && (!value.includes(safe.kind) || value.startsWith('-')))
      return `'${flag}' may only take a value holding '${safe.kind}', not '${value}'`;
    if (safe.kind === 'enum' && !safe.values?.includes(value))
      return `'${flag} ${value}' is not a safe value (safe: ${safe.values?.join(', ')}): it would approve or change what the runner allows`;
    if (safe.kind === 'deny-settings') {
      const why = denySettingsFlaw(value);
      if (why) return `'${flag}' value ${why}`;
    }
    if (safe.kind === 'tool' && (/[*?]/.test(value.replace(/\(.*\)$/, '')) || value.split('{command}').length > 2 || /^all$/i.test(value)))
      return `'${flag} ${value}' approves more than one tool`;
  }
  return undefined;
}

/** Why a template (args, resume_args, a grant) uses something the allow-list does not declare, or undefined. */
function templateFlaw(tokens: string[], flags: Record<string, unknown>, positionals: string[], grant: boolean): string | undefined {
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as string;
    if (token.startsWith('-')) {
      if (!Object.hasOwn(flags, token)) return `uses '${token}', which 'flags' does not declare`;
      const kind = SAFE_FLAGS[token]?.kind;
      if (grant !== (kind === 'tool'))
        return grant ? `holds '${token}', which is not an approval` : `holds the approval '${token}', which belongs in grants`;
      if (kind === 'none') continue;
      const value = tokens[++i];
      if (value === undefined || !list(flags[token]).includes(value))
        return `passes '${token} ${value ?? ''}', a value 'flags' does not declare`;
    } else if (grant || !positionals.includes(token)) return `passes '${token}', which 'positionals' does not declare`;
  }
  return undefined;
}

export const argvRules = {
  argvIsAllowListed: rule(
    'argv-is-allow-listed',
    'a headless argv is made only of the flags and positionals its manifest declares, each one gateline knows as safe (no mode that auto-approves, no config override)',
    (m: ManifestInput): Problem[] => {
      const h = record(m.json.headless) as Raw;
      if (m.json.headless === undefined) return [];
      const problems: Problem[] = [];
      const flags = record(h.flags);
      for (const [flag, values] of Object.entries(flags)) {
        const why = declarationFlaw(flag, list(values));
        if (why) problems.push(at(m, 'flags', why));
      }
      const positionals = list(h.positionals);
      for (const word of positionals)
        if (!SAFE_POSITIONALS.includes(word))
          problems.push(at(m, 'positionals', `declares '${word}' (safe: ${SAFE_POSITIONALS.join(', ')})`));
      const check = (key: string, tokens: string[], grant: boolean) => {
        const why = templateFlaw(tokens, flags, positionals, grant);
        if (why) problems.push(at(m, key === 'args' ? 'headless' : key, `${key === 'args' ? "'args' " : ''}${why}`));
      };
      check('args', list(h.args), false);
      if (h.resume_args !== undefined) check('resume_args', list(h.resume_args), false);
      for (const fragment of Object.values(record(h.grants))) check('grants', list(fragment), true);
      if (h.command_grant !== undefined) check('command_grant', list(h.command_grant), true);
      return problems;
    },
  ),

  grantsMatchToolMap: rule(
    'grants-match-tool-map',
    "a capability's grant approves only tools its tool_map entry lists (a manifest may not approve Bash under read)",
    (m: ManifestInput): Problem[] => {
      const h = record(m.json.headless) as Raw;
      const toolMap = record(m.json.tool_map);
      const names = record(h.approval_names);
      const problems: Problem[] = [];
      // An approval name stands for one tool only, or one capability's tool could be approved under another.
      const seen = new Map<string, string>();
      for (const [tool, name] of Object.entries(names)) {
        const other = seen.get(String(name));
        if (other) problems.push(at(m, 'approval_names', `gives '${other}' and '${tool}' the same approval name '${String(name)}'`));
        seen.set(String(name), tool);
      }
      const approvals = (cap: string) => list(toolMap[cap]).map((t) => (Object.hasOwn(names, t) ? String(names[t]) : t));
      const toolOf = (value: string) => value.replace(/\(.*\)$/, '');
      for (const [cap, fragment] of Object.entries(record(h.grants))) {
        const tokens = list(fragment);
        for (let i = 1; i < tokens.length; i += 2) {
          const tool = toolOf(tokens[i] as string);
          if (!approvals(cap).includes(tool))
            problems.push(
              at(
                m,
                'grants',
                `'${cap}' approves '${tool}', which tool_map does not list for '${cap}' (${approvals(cap).join(', ') || 'nothing'})`,
              ),
            );
        }
      }
      const command = list(h.command_grant)[1];
      if (command !== undefined && !approvals('shell').includes(toolOf(command)))
        problems.push(at(m, 'command_grant', `approves '${toolOf(command)}', which tool_map does not list for 'shell'`));
      return problems;
    },
  ),
};
