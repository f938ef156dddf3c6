import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// What a host gets in <prefix>/core: the core modules, the shipped data, and a package.json
// that makes Node treat the .ts files as ES modules whatever the host's own package.json says.
export const CORE_ENTRIES = [
  'src/main.ts',
  'src/cli.ts',
  'src/gateline.mjs',
  'src/start',
  'src/render',
  'src/validate',
  'src/shared',
  'roles',
  'adapters',
  'registry',
];

/** Copies the core found at `fromRoot` (a checkout or the installer package) into `dest`. */
export function vendorCore(fromRoot: string, dest: string): void {
  mkdirSync(dest, { recursive: true });
  for (const entry of CORE_ENTRIES) {
    cpSync(join(fromRoot, entry), join(dest, entry), { recursive: true, filter: (src) => !src.endsWith('.test.ts') });
  }
  writeFileSync(join(dest, 'package.json'), corePackageJson(readVersion(fromRoot)));
}

export function corePackageJson(version: string): string {
  return `${JSON.stringify({ name: 'gateline-core', version, private: true, type: 'module' }, null, 2)}\n`;
}

export function readVersion(root: string): string {
  return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
}
