// The `gateline` command line: render and validate. Failures go to the one error boundary.
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { locate } from './render/context.ts';
import { renderAll } from './render/render.ts';
import { staleLines } from './render/stale.ts';
import { boundary } from './shared/boundary.ts';
import { parseFlags } from './shared/flags.ts';
import { UsageError } from './shared/problem.ts';
import { paint, problemLines } from './shared/report.ts';
import { type StagedFix, validateStaged } from './validate/staged.ts';
import { validate } from './validate/validate.ts';

export interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  cwd: string;
  /** How a user runs this core, for the "fix" hints: `gateline` from the bin, else `node <path>`. */
  invokedAs?: string;
}

const USAGE = `Usage: gateline <command> [options]

Commands:
  render            render every role into every adapter's agent files
  render --check    write nothing; exit 1 if a rendered file is missing, stale or orphaned
  validate          check the lock, the vendored core, overlays, specs, manifests and freshness
  validate --staged check what the next commit holds (the git index), as the pre-commit hook does

Options:
  --root DIR        start looking for the host (or checkout) in DIR instead of the working directory
  --prefix P        the host's gateline folder (default .gateline)
  --json            print one machine-readable result object
  --verbose         show stack traces
  -h, --help        show this help
  -v, --version     print the framework version

Exit codes: 0 ok, 1 a failed check or a problem in the inputs, 2 a usage error.`;

const OPTIONS = {
  check: { type: 'boolean' },
  staged: { type: 'boolean' },
  root: { type: 'string' },
  prefix: { type: 'string' },
  json: { type: 'boolean' },
  verbose: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

export function main(argv: string[], io: Io): number {
  let verbose = argv.includes('--verbose');
  let json = argv.includes('--json');
  const print = (text: string) => io.stdout.write(`${text}\n`);
  const fail = (text: string) => io.stderr.write(`${text}\n`);
  try {
    const { values, positionals } = parse(argv);
    verbose = values.verbose ?? false;
    json = values.json ?? false;
    if (values.version || values.help) {
      print(values.version ? version() : USAGE);
      return 0;
    }
    if (positionals.length === 0) throw new UsageError('no command given (render or validate)');
    const [command, ...extra] = positionals;
    if (command !== 'render' && command !== 'validate') throw new UsageError(`unknown command '${command}'`);
    if (extra.length) throw new UsageError(`unexpected argument '${extra[0]}'`);
    if (values.check && command !== 'render') throw new UsageError('--check belongs to render (validate always checks)');
    if (values.staged && command !== 'validate') throw new UsageError('--staged belongs to validate');

    const ctx = locate(values.root ? resolve(io.cwd, values.root) : io.cwd, values.prefix);
    const fix = `${io.invokedAs ?? `node ${relative(io.cwd, join(import.meta.dirname, 'gateline.mjs'))}`} render${values.root ? ` --root ${values.root}` : ''}${values.prefix ? ` --prefix ${values.prefix}` : ''}`;
    const base = { command, mode: ctx.mode, root: ctx.root };

    if (command === 'validate') {
      const staged = values.staged ? validateStaged(ctx, io.cwd) : undefined;
      const { problems, states } = staged ?? validate(ctx);
      const name = `gateline validate${staged ? ' --staged' : ''}`;
      if (json) {
        const extra = staged ? { staged: true, unstaged: staged.unstaged, ...(staged.fix ? { fix: staged.fix } : {}) } : {};
        print(JSON.stringify({ ...base, ok: problems.length === 0, problems, files: summary(states), ...extra }));
      } else if (problems.length) {
        fail(problemLines(problems, io.stderr).join('\n'));
        fail(`${name}: ${count(problems.length, 'problem')}${staged?.unstaged.length ? ' in what is staged for commit' : ''}`);
        if (staged?.fix) fail(fixLines(staged.fix, fix, io.stderr));
      } else {
        const ok = `${count(states.length, 'rendered file')} fresh${ctx.lock ? ', core matches the lock' : ''}`;
        const aside = staged?.unstaged.length
          ? `; ${count(staged.unstaged.length, 'file')} of gateline's with unstaged changes, not part of this commit`
          : '';
        print(`${name}: ok (${ok}${aside})`);
      }
      return problems.length ? 1 : 0;
    }

    const check = values.check ?? false;
    const result = renderAll(ctx, { check });
    if (json) {
      print(
        JSON.stringify({
          ...base,
          check,
          ok: result.ok,
          problems: result.problems,
          files: summary(result.states),
          written: result.written,
          removed: result.removed,
        }),
      );
    } else if (result.problems.length) {
      fail(problemLines(result.problems, io.stderr).join('\n'));
      fail(`gateline render: ${count(result.problems.length, 'problem')}; nothing was written`);
    } else if (check && !result.ok) {
      const stale = result.states.filter((s) => s.status !== 'fresh');
      fail(staleLines(stale, io.stderr).join('\n'));
      fail(`gateline render --check: ${count(stale.length, 'file')} out of date. Fix: ${paint('bold', fix, io.stderr)}`);
    } else if (check) {
      print(`gateline render --check: ${count(result.states.length, 'file')} up to date`);
    } else {
      // One write for the whole report, not one per file.
      const fresh = result.states.length - result.written.length - result.removed.length;
      const lines = [...result.written.map((path) => `wrote ${path}`), ...result.removed.map((path) => `removed ${path}`)];
      lines.push(`gateline render: ${result.written.length} written, ${result.removed.length} removed, ${fresh} up to date`);
      print(lines.join('\n'));
    }
    return result.ok ? 0 : 1;
  } catch (error) {
    return boundary(error, io, { command: 'gateline', json, verbose });
  }
}

function parse(argv: string[]) {
  return parseFlags({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
}

/** What makes the staged content right: render if needed, then stage exactly these files. */
function fixLines(staged: StagedFix, render: string, stream: NodeJS.WritableStream): string {
  const steps = [staged.render ? `${render}, then ` : '', paint('bold', staged.command, stream)].join('');
  const lines = [
    staged.workTreeOk
      ? `Fix: ${steps}`
      : `Fix the work tree first (validate without --staged lists its problems), then stage gateline's files: ${steps}`,
  ];
  if (staged.temporaryIndex)
    lines.push(
      '(This commit uses a temporary index, as git commit -a and git commit <paths> do: commit with -a again, or name these files too.)',
    );
  return lines.join('\n');
}

function summary(states: { path: string; status: string; adapter: string; role?: string }[]) {
  return states.map(({ path, status, adapter, role }) => ({ path, status, adapter, role }));
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function version(): string {
  const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as { version?: string };
  return pkg.version ?? 'unknown';
}
