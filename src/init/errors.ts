/** An expected stop of the installer: printed without a stack trace, exit 1. */
export class InstallError extends Error {
  override name = 'InstallError';
}
