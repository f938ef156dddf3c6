import { argvRules } from './rules/argv.ts';
import { discoveryRules } from './rules/discovery.ts';
import { fileRules } from './rules/files.ts';
import { manifestRules } from './rules/manifest.ts';
import { roleRules } from './rules/role.ts';
import type { Rule } from './rules/rule.ts';

// Every rule that keeps a role narrow and every path inside the repository, in one table. Each
// rule is named, takes what it needs and returns Problem[] tagged with its name; the manifest
// loader, the role reader, the planner, the disk comparison, locate and validate run them.
// rules/manifest.ts, rules/role.ts and rules/files.ts hold them by what they read;
// docs/narrowing.md lists each with the test that refuses it (test/rules.test.ts fails when a
// rule has no refusing case).

export const rules = { ...manifestRules, ...argvRules, ...roleRules, ...fileRules, ...discoveryRules };

/** Every rule, for the table test and the docs. */
export const RULES: Rule<[]>[] = Object.values(rules) as unknown as Rule<[]>[];

export { manifestValues } from './rules/manifest.ts';
export { toolsFor } from './rules/role.ts';
