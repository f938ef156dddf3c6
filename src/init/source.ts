import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import degit, { type Options as DegitOptions } from 'degit';
import { PACKAGE_ROOT } from '../host/package.ts';
import type { Lock } from '../shared/lock.ts';
import { InstallError } from './errors.ts';
import { readVersion } from './vendor.ts';

export interface CoreSource {
  /** A folder holding the core: src/, roles/, adapters/, registry/, package.json. */
  dir: string;
  version: string;
  source: Lock['source'];
  cleanup: () => void;
}

/** The core in the package this installer runs from: the default, offline source. */
export function embeddedSource(packageRoot = PACKAGE_ROOT): CoreSource {
  const version = readVersion(packageRoot);
  const name = 'create-gateline';
  const tarballIntegrity = installedIntegrity(packageRoot, name, version);
  return {
    dir: packageRoot,
    version,
    source: { type: 'embedded', package: `${name}@${version}`, ...(tarballIntegrity ? { tarballIntegrity } : {}) },
    cleanup: () => {},
  };
}

/**
 * The npm integrity of the tarball this package was installed from: npm (and `npm create`'s npx
 * cache) records it in node_modules/.package-lock.json. Undefined when run from a checkout or
 * when npm left no record; `gateline check-upstream` then compares file contents only.
 */
function installedIntegrity(packageRoot: string, name: string, version: string): string | undefined {
  const modules = dirname(packageRoot);
  if (basename(packageRoot) !== name || basename(modules) !== 'node_modules') return undefined;
  try {
    const hidden = JSON.parse(readFileSync(join(modules, '.package-lock.json'), 'utf8')) as {
      packages?: Record<string, { version?: unknown; integrity?: unknown }>;
    };
    const entry = hidden.packages?.[`node_modules/${name}`];
    return entry?.version === version && typeof entry.integrity === 'string' && /^sha512-/.test(entry.integrity)
      ? entry.integrity
      : undefined;
  } catch {
    return undefined; // no record, or one npm wrote in a shape this does not know: not worth failing an install
  }
}

/**
 * Fetches the core with degit (`user/repo[/subdir][#ref]`, GitHub, GitLab, ...) into a temp
 * folder and records the commit it resolved to. `options` lets callers point degit's fetch and
 * git client elsewhere (a mirror, a local repository).
 */
export async function degitSource(from: string, options: DegitOptions = {}): Promise<CoreSource> {
  const dir = mkdtempSync(join(tmpdir(), 'gateline-core-'));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  try {
    const emitter = degit(from, { cache: false, force: true, ...options });
    await emitter.clone(dir);
    const commit = emitter.repo ? await emitter.getHash(emitter.repo, {}) : undefined;
    if (!commit) throw new Error(`could not resolve the commit of ${from}`);
    for (const entry of ['package.json', 'src/main.ts', 'roles', 'adapters']) {
      if (!existsSync(join(dir, entry))) {
        throw new InstallError(
          `--from ${from}: the fetched tree has no ${entry}, so it is not a gateline core. Point --from at a gateline repository (and subfolder).`,
        );
      }
    }
    return { dir, version: readVersion(dir), source: { type: 'degit', repo: from, commit }, cleanup };
  } catch (error) {
    cleanup();
    if (error instanceof InstallError) throw error;
    const code = (error as { code?: string }).code;
    const reason = (error as Error).message;
    throw new InstallError(
      `--from ${from}: could not fetch the core (${code ? `${code}: ` : ''}${reason}). ` +
        'Check the source and your network; without --from the installer uses the core embedded in the package, which works offline.',
    );
  }
}
