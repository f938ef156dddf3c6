import { join } from 'node:path';

/**
 * The package this code runs from (a checkout, or the installed create-gateline with its dist/):
 * its templates/ and its copy of the core are the installer's defaults, and doctor's yardstick.
 */
export const PACKAGE_ROOT = join(import.meta.dirname, '..', '..');
