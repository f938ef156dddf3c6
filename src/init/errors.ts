import { FrameworkError } from '../shared/problem.ts';

/**
 * An expected stop of the installer: a problem filed under create-gateline (exit 1, no stack).
 * Kept as a class because the installer's own steps catch it by type: an InstallError is passed
 * on as it is, anything else is wrapped with what was rolled back.
 */
export class InstallError extends FrameworkError {
  override name = 'InstallError';
  constructor(message: string) {
    super([{ file: 'create-gateline', message }], message);
  }
}
