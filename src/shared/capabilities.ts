// The runtime-neutral capability vocabulary (docs/contract.md). Extending it is a contract change.
export const CAPABILITIES = ['read', 'search', 'edit', 'write', 'shell', 'web', 'delegate'] as const;
export type Capability = (typeof CAPABILITIES)[number];

export function isCapability(value: string): value is Capability {
  return (CAPABILITIES as readonly string[]).includes(value);
}

/** Role names are file names and output path parts, so they are kept to a safe alphabet. */
export const ROLE_NAME = /^[a-z][a-z0-9-]*$/;
