// The runtime-neutral capability vocabulary (docs/contract.md). Extending it is a contract change.
export const CAPABILITIES = ['read', 'search', 'edit', 'write', 'shell', 'web', 'delegate'] as const;
export type Capability = (typeof CAPABILITIES)[number];

export function isCapability(value: string): value is Capability {
  return BY_NAME.has(value);
}

// Each name to the vocabulary's own string: a role's capabilities are then the same strings as
// everyone else's, and comparing them (several times per rendered file) is comparing pointers.
const BY_NAME = new Map<string, Capability>(CAPABILITIES.map((c) => [c, c]));

/** The vocabulary's own string for `value`, or undefined when it is not a capability. */
export function capability(value: string): Capability | undefined {
  return BY_NAME.get(value);
}

/** Role names are file names and output path parts, so they are kept to a safe alphabet. */
export const ROLE_NAME = /^[a-z][a-z0-9-]*$/;
