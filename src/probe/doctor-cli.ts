import { resolve } from 'node:path';
import { parseArgs, styleText } from 'node:util';
import { locate } from '../shared/context.ts';
import { FrameworkError, formatProblem } from '../shared/problem.ts';
import { diagnose, gatherDoctor } from './doctor.ts';

const USAGE = `Usage: gateline doctor [--json] [--root DIR] [--prefix P]

Checks a host: Node on PATH, the selected runners (present, and at least the version gateline's
conformance suite proves), the pre-commit hook, the render-check workflow, what validate reports,
and the runner-side steps each runner's manifest lists (Gemini CLI agent acknowledgement, Codex
project trust).
Exit 0 when healthy, 1 when not.`;

export interface DoctorIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  cwd: string;
  env?: NodeJS.ProcessEnv;
}

export async function runDoctor(argv: string[], io: DoctorIo): Promise<number> {
  let values: { json?: boolean; root?: string; prefix?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { json: { type: 'boolean' }, root: { type: 'string' }, prefix: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    }));
  } catch (error) {
    io.stderr.write(`gateline doctor: ${(error as Error).message}\n`);
    return 2;
  }
  if (values.help) {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  try {
    const ctx = locate(resolve(io.cwd, values.root ?? '.'), values.prefix);
    if (ctx.mode !== 'host')
      throw new FrameworkError([
        { file: ctx.root, message: 'is a gateline checkout, not a host: doctor checks repositories that adopted gateline' },
      ]);
    const findings = diagnose(await gatherDoctor(ctx, io.env ?? process.env));
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
    if (error instanceof FrameworkError) io.stderr.write(`${error.problems.map(formatProblem).join('\n')}\n`);
    else io.stderr.write(`gateline doctor: could not finish (${(error as Error).message}); fix that, then run it again\n`);
    return 1;
  }
}
