import { isAbsolute, resolve } from 'node:path';
import { FrameworkError } from '../shared/problem.ts';

// The few git plumbing calls `validate --staged` needs, run in the repository's top folder.
// They read the index git names in GIT_INDEX_FILE: `git commit -a` and `git commit <paths>` give
// their hooks a temporary index there, and that is what gets committed.

export interface Git {
  /** Absolute path of the work tree's top folder. */
  top: string;
  /** True when GIT_INDEX_FILE names another index than the repository's own (commit -a, commit <paths>). */
  temporaryIndex: boolean;
  /** Runs git in `top`; NUL-separated stdout, split. Throws FrameworkError when git fails. */
  list(args: string[], input?: Buffer): string[];
  /** Runs git in `top` and returns stdout as bytes. */
  raw(args: string[], input?: Buffer): Buffer;
}

/** Git for the repository holding `dir`; `cwd` is where relative GIT_* paths from a hook are meant from. */
export function openGit(dir: string, cwd: string, display: string): Git {
  // Loaded here, not at the top: node:child_process pulls in net and dgram, milliseconds that
  // every render --check and plain validate would pay for nothing.
  const { spawnSync } = process.getBuiltinModule('node:child_process');
  const env = gitEnv(cwd);
  const run = (args: string[], at: string, input?: Buffer) => {
    const result = spawnSync('git', args, { cwd: at, env, input, maxBuffer: 1 << 30 });
    if (result.error) {
      throw new FrameworkError([{ file: display, message: `--staged needs git, which could not be run (${result.error.message})` }]);
    }
    if (result.status !== 0) {
      const why = result.stderr.toString('utf8').trim().split('\n')[0] ?? '';
      throw new FrameworkError([{ file: display, message: `git ${args[0]} failed (${why}); see git status` }]);
    }
    return result.stdout as Buffer;
  };
  // Without GIT_INDEX_FILE, --git-path names the repository's own index, to compare with the hook's.
  const { GIT_INDEX_FILE: index, ...plain } = env;
  const probe = spawnSync('git', ['rev-parse', '--show-toplevel', '--git-path', 'index'], { cwd: dir, env: plain });
  const lines = probe.status === 0 ? probe.stdout.toString('utf8').split('\n') : [];
  if (probe.error || !lines[0]) {
    throw new FrameworkError([
      {
        file: display,
        message:
          '--staged judges what the next commit holds (the git index), but this is not inside a git work tree' +
          `${probe.error ? ' (git could not be run)' : ''}: run validate without --staged, or git init first`,
      },
    ]);
  }
  const top = lines[0];
  return {
    top,
    temporaryIndex: index !== undefined && resolve(index) !== resolve(dir, lines[1] ?? ''),
    raw: (args, input) => run(args, top, input),
    list: (args, input) => split(run(args, top, input), display),
  };
}

/**
 * The hook's environment, with relative repository paths made absolute (git gives hooks
 * GIT_INDEX_FILE and may give GIT_DIR relative to where it runs them), optional index writes off
 * (`git status` must not rewrite the index a commit holds locked) and every path taken literally.
 */
function gitEnv(cwd: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_LITERAL_PATHSPECS: '1' };
  for (const key of ['GIT_GLOB_PATHSPECS', 'GIT_NOGLOB_PATHSPECS', 'GIT_ICASE_PATHSPECS']) delete env[key];
  for (const key of ['GIT_INDEX_FILE', 'GIT_DIR', 'GIT_WORK_TREE', 'GIT_COMMON_DIR', 'GIT_OBJECT_DIRECTORY']) {
    const value = env[key];
    if (value && !isAbsolute(value)) env[key] = resolve(cwd, value);
  }
  return env;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** NUL-separated names; one that is not UTF-8 cannot be named exactly in a hint, so it is refused. */
function split(bytes: Buffer, display: string): string[] {
  try {
    return UTF8.decode(bytes).split('\0').filter(Boolean);
  } catch {
    throw new FrameworkError([{ file: display, message: "git lists a file whose name is not UTF-8 among gateline's files: rename it" }]);
  }
}
