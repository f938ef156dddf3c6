import { resolve } from 'node:path';
import { styleText } from 'node:util';
import { locate } from '../render/context.ts';
import { boundary } from '../shared/boundary.ts';
import { parseFlags } from '../shared/flags.ts';
import { FrameworkError, Interrupted } from '../shared/problem.ts';
import { diagnose, gatherDoctor } from './doctor.ts';

const USAGE = `Usage: gateline doctor [--json] [--root DIR] [--prefix P] [--verbose]

Checks a host: Node on PATH, the selected runners (present, and at least the version gateline's
conformance suite proves), the pre-commit hook, the render-check workflow, what validate reports,
and the runner-side steps each runner's manifest lists (Gemini CLI agent acknowledgement, Codex
project trust).
Exit 0 when healthy, 1 when not, 2 a usage error, 130 interrupted.`;

export interface DoctorIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Aborted by Ctrl-C: doctor stops after the checks under way, exit 130. */
  signal?: AbortSignal;
}

export async function runDoctor(argv: string[], io: DoctorIo): Promise<number> {
  const json = argv.includes('--json');
  try {
    const values = parse(argv);
    if (values.help) {
      io.stdout.write(`${USAGE}\n`);
      return 0;
    }
    const ctx = locate(resolve(io.cwd, values.root ?? '.'), values.prefix);
    if (ctx.mode !== 'host')
      throw new FrameworkError([
        { file: ctx.root, message: 'is a gateline checkout, not a host: doctor checks repositories that adopted gateline' },
      ]);
    if (io.signal?.aborted) throw new Interrupted('doctor stopped before its checks');
    const findings = diagnose(await gatherDoctor(ctx, io.env ?? process.env));
    if (io.signal?.aborted) throw new Interrupted('doctor stopped before its report');
    const ok = findings.every((f) => f.ok);
    if (values.json) {
      io.stdout.write(`${JSON.stringify({ ok, root: ctx.root, findings })}\n`);
    } else {
      const mark = (good: boolean) => styleText(good ? 'green' : 'red', good ? 'ok  ' : 'FIX ', { stream: io.stdout });
      for (const f of findings) {
        io.stdout.write(`${mark(f.ok)} ${f.message}\n`);
        if (!f.ok && f.fix) io.stdout.write(`     -> ${f.fix}\n`);
      }
      const bad = findings.filter((f) => !f.ok).length;
      io.stdout.write(ok ? 'gateline doctor: healthy\n' : `gateline doctor: ${bad} thing(s) to fix\n`);
    }
    return ok ? 0 : 1;
  } catch (error) {
    return boundary(error, io, { command: 'gateline doctor', json, verbose: argv.includes('--verbose'), signal: io.signal });
  }
}

function parse(argv: string[]) {
  return parseFlags({
    args: argv,
    options: {
      json: { type: 'boolean' },
      root: { type: 'string' },
      prefix: { type: 'string' },
      verbose: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  }).values;
}
