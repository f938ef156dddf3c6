// @ts-check
// Standard output and error for the core. The first touch of process.stdout or process.stderr
// loads Node's streams: two dozen internal modules, milliseconds of a run that prints one line.
// Where the output is a pipe, a file or /dev/null (CI, hooks, scripts) a synchronous write does
// what Node's stream does there; a terminal, or anything else, keeps Node's own stream.
const { fstatSync, statSync, writeSync } = process.getBuiltinModule('node:fs');

/**
 * @param {1 | 2} fd
 * @returns {NodeJS.WriteStream | NodeJS.WritableStream}
 */
export function output(fd) {
  if (plain(fd)) return /** @type {NodeJS.WritableStream} */ (/** @type {unknown} */ (writer(fd)));
  return fd === 1 ? process.stdout : process.stderr;
}

/** @param {number} fd */
function plain(fd) {
  if (process.platform === 'win32') return false;
  try {
    const stat = fstatSync(fd);
    if (stat.isFIFO() || stat.isFile() || stat.isSocket()) return true;
    return stat.isCharacterDevice() && stat.rdev === statSync('/dev/null').rdev;
  } catch {
    return false;
  }
}

/**
 * Writes each text whole before returning, as Node does for pipes and files. util.styleText takes
 * it for a stream (`write` and `on`) and colours it as Node's own non-terminal stream: only with
 * FORCE_COLOR. A reader that went away (`| head -1`) ends the printing, not the run.
 * @param {number} fd
 */
function writer(fd) {
  let gone = false;
  return {
    isTTY: false,
    on() {
      return this;
    },
    /** @param {string} text */
    write(text) {
      const bytes = Buffer.from(text);
      for (let at = 0; at < bytes.length && !gone; ) {
        try {
          at += writeSync(fd, bytes, at);
        } catch (error) {
          const code = /** @type {NodeJS.ErrnoException} */ (error).code;
          // A pipe its reader made non-blocking is full: wait a millisecond for it to drain.
          if (code === 'EAGAIN') Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
          else if (code === 'EPIPE') gone = true;
          else throw error;
        }
      }
      return true;
    },
  };
}
