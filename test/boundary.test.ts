import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli.ts';
import { run as install } from '../src/init/cli.ts';
import { runDoctor } from '../src/probe/doctor-cli.ts';
import { boundary } from '../src/shared/boundary.ts';
import { FrameworkError, Interrupted, UsageError } from '../src/shared/problem.ts';
import { run as up } from '../src/up/cli.ts';
import { CLEAN_ENV, checkout, copyTree, gateline, gitRepo, host, REPO, testdir } from './helpers.ts';

// One error boundary behind every entry point: gateline render/validate (the core), create-gateline,
// gateline doctor, gateline up and the gateline bin's dispatch. Each outcome reads the same
// everywhere: a usage error exits 2 with a --help hint (a JSON object under --json), problems exit
// 1 as `file[:line]: message`, an internal error says it is a bug (the stack only with --verbose),
// and an interruption exits 130.

const STACK = /\n\s+at /;
const BIN = join(REPO, 'src/bin/gateline.ts');

/** A stream that keeps what is written; `broken` makes every write throw, the way to provoke an internal error. */
function sink({ broken = false } = {}) {
  let text = '';
  const stream = new Writable({
    write(chunk, _enc, done) {
      if (broken) throw new Error('the disk is full');
      text += String(chunk);
      done();
    },
  });
  return { stream, text: () => text };
}

/** Runs an in-process entry point with captured streams. */
async function inProcess(start: (io: { stdout: Writable; stderr: Writable }) => number | Promise<number>, { broken = false } = {}) {
  const out = sink({ broken });
  const err = sink();
  const code = await start({ stdout: out.stream, stderr: err.stream });
  return { code, stdout: out.text(), stderr: err.text() };
}

function bin(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A framework checkout with the registry, for gateline up. */
function upRepo(): string {
  const dir = checkout();
  copyTree(join(REPO, 'registry'), join(dir, 'registry'));
  expect(gateline(['render'], dir).code).toBe(0);
  return dir;
}

function expectUsage(r: { code: number | null; stderr: string }, command: string, message: RegExp) {
  expect(r.code).toBe(2);
  const [first, hint] = r.stderr.trimEnd().split('\n');
  expect(first).toMatch(new RegExp(`^${command}: `));
  expect(first).toMatch(message);
  expect(hint).toBe(`Run '${command} --help' for usage.`);
}

function expectJsonUsage(r: { code: number | null; stdout: string; stderr: string }, command: string, message: RegExp) {
  expect(r.code).toBe(2);
  expect(JSON.parse(r.stdout)).toEqual({ ok: false, problems: [{ file: command, message: expect.stringMatching(message) }] });
  expect(r.stderr).toBe('');
}

function expectInternal(r: { code: number | null; stderr: string }, command: string, program = command) {
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`${command}: internal error: the disk is full\n`);
  expect(r.stderr).toContain(`This is a bug in ${program}; run again with --verbose for the stack trace and report it.`);
  expect(r.stderr).not.toMatch(STACK);
}

describe('the boundary itself', () => {
  const io = () => ({ out: sink(), err: sink() });

  it('maps each kind of error to its exit code and prose', () => {
    const cases: [unknown, number, RegExp][] = [
      [new UsageError('bad flag'), 2, /^x: bad flag\nRun 'x --help' for usage\.\n$/],
      [
        new FrameworkError([
          { file: 'a.md', line: 3, message: 'm' },
          { file: 'b.md', message: 'n' },
        ]),
        1,
        /^a\.md:3: m\nb\.md: n\n$/,
      ],
      [new Interrupted('nothing was written'), 130, /^x: interrupted: nothing was written\n$/],
      [new TypeError('oops'), 1, /^x: internal error: oops\nThis is a bug in x; run again with --verbose/],
      ['a string', 1, /^x: internal error: a string\n/],
    ];
    for (const [error, code, prose] of cases) {
      const { out, err } = io();
      expect(boundary(error, { stdout: out.stream, stderr: err.stream }, { command: 'x' })).toBe(code);
      expect(err.text()).toMatch(prose);
      expect(err.text()).not.toMatch(STACK);
      expect(out.text()).toBe('');
    }
  });

  it('an aborted signal makes any error an interruption, said with what it left behind', () => {
    const { out, err } = io();
    const controller = new AbortController();
    controller.abort();
    const code = boundary(
      new Error('killed'),
      { stdout: out.stream, stderr: err.stream },
      {
        command: 'x',
        signal: controller.signal,
        interrupted: 'rolled back',
      },
    );
    expect(code).toBe(130);
    expect(err.text()).toBe('x: interrupted: rolled back\n');
  });

  it('--json prints one object on stdout (or what finish returns); --verbose adds the stack', () => {
    const { out, err } = io();
    expect(boundary(new Error('boom'), { stdout: out.stream, stderr: err.stream }, { command: 'x', json: true })).toBe(1);
    expect(JSON.parse(out.text())).toEqual({ ok: false, problems: [{ file: 'x', message: 'internal error: boom' }] });
    expect(err.text()).toBe('');
    const other = io();
    const finish = (failure: { code: number }) => ({ summary: true, code: failure.code });
    boundary(
      new Error('boom'),
      { stdout: other.out.stream, stderr: other.err.stream },
      { command: 'x', json: true, verbose: true, finish },
    );
    expect(JSON.parse(other.out.text())).toEqual({ summary: true, code: 1 });
    expect(other.err.text()).toMatch(/^Error: boom\n\s+at /);
  });
});

describe('gateline render and validate (the core)', () => {
  it('usage: exit 2 with the hint; under --json one object', () => {
    const dir = checkout();
    expectUsage(gateline(['render', '--nope'], dir), 'gateline', /Unknown option '--nope'/);
    expectJsonUsage(gateline(['validate', '--json', '--nope'], dir), 'gateline', /Unknown option '--nope'/);
  });

  it('problems: exit 1, each as file[:line]: message', () => {
    const dir = checkout({ 'roles/reviewer.md': '---\nbogus: 1\n---\n' });
    const r = gateline(['render'], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^roles\/reviewer\.md:2: unknown key 'bogus'/m);
    expect(r.stderr).toMatch(/^roles\/reviewer\.md:1: missing required key 'dispatch'/m);
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.stderr).not.toMatch(STACK);
  });

  it('internal: "internal error", a line saying it is a bug, the stack only with --verbose', async () => {
    const dir = checkout();
    expectInternal(await inProcess((io) => main(['--version'], { ...io, cwd: dir }), { broken: true }), 'gateline');
    const verbose = await inProcess((io) => main(['--version', '--verbose'], { ...io, cwd: dir }), { broken: true });
    expect(verbose.code).toBe(1);
    expect(verbose.stderr).toMatch(/This is a bug in gateline; report it with the stack trace below\.\nError: the disk is full\n\s+at /);
  });
});

describe('create-gateline', () => {
  const io = (dir: string) => ({ cwd: dir, interactive: false, env: CLEAN_ENV });

  it('usage: exit 2 with the hint (it has no --json: that is an unknown option too)', async () => {
    const dir = gitRepo();
    expectUsage(await inProcess((s) => install(['--hook', 'svn'], { ...s, ...io(dir) })), 'create-gateline', /--hook must be one of/);
    expectUsage(await inProcess((s) => install(['a', 'b'], { ...s, ...io(dir) })), 'create-gateline', /expected one directory/);
    expectUsage(await inProcess((s) => install(['--json'], { ...s, ...io(dir) })), 'create-gateline', /Unknown option '--json'/);
  });

  it('problems: exit 1, filed under create-gateline, nothing written', async () => {
    const dir = testdir();
    const r = await inProcess((s) => install(['--yes'], { ...s, ...io(dir) }));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^create-gateline: .* is not a git repository: run git init there first/);
    expect(r.stderr).not.toMatch(/internal error|This is a bug/);
    expect(existsSync(join(dir, '.gateline'))).toBe(false);
  });

  it('internal: "internal error", a bug line, the stack only with --verbose', async () => {
    const dir = gitRepo();
    expectInternal(await inProcess((s) => install(['--yes'], { ...s, ...io(dir) }), { broken: true }), 'create-gateline');
    const verbose = await inProcess((s) => install(['--yes', '--verbose'], { ...s, ...io(dir) }), { broken: true });
    expect(verbose.stderr).toMatch(STACK);
  });

  // Interrupted (a real SIGINT to the real bin while it writes: exit 130, all rolled back) is in init.test.ts.
});

describe('gateline doctor', () => {
  const env = { PATH: CLEAN_ENV.PATH };

  it('usage: exit 2 with the hint; under --json one object', async () => {
    const dir = host();
    expectUsage(await inProcess((s) => runDoctor(['--nope'], { ...s, cwd: dir, env })), 'gateline doctor', /Unknown option '--nope'/);
    expectJsonUsage(
      await inProcess((s) => runDoctor(['--json', 'extra'], { ...s, cwd: dir, env })),
      'gateline doctor',
      /Unexpected argument 'extra'/,
    );
  });

  it('problems: exit 1 as file: message', async () => {
    const dir = checkout();
    const r = await inProcess((s) => runDoctor([], { ...s, cwd: dir, env }));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`${dir}: is a gateline checkout, not a host: doctor checks repositories that adopted gateline\n`);
  });

  it('internal: "internal error" and a bug line, no stack; interrupted: exit 130', async () => {
    const dir = host();
    expectInternal(await inProcess((s) => runDoctor([], { ...s, cwd: dir, env }), { broken: true }), 'gateline doctor', 'gateline');
    const controller = new AbortController();
    controller.abort();
    const stopped = await inProcess((s) => runDoctor([], { ...s, cwd: dir, env, signal: controller.signal }));
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toBe('gateline doctor: interrupted: doctor stopped before its checks\n');
  });
});

describe('gateline up', () => {
  it('usage: exit 2 with the hint; under --json one object', async () => {
    const dir = upRepo();
    expectUsage(await inProcess((s) => up(['--plan'], { ...s, cwd: dir })), 'gateline up', /no --adapter given/);
    expectJsonUsage(await inProcess((s) => up(['--plan', '--json'], { ...s, cwd: dir })), 'gateline up', /no --adapter given/);
  });

  it('problems: exit 1 as file: message', async () => {
    const dir = upRepo();
    const r = await inProcess((s) => up(['--plan', '--adapter', 'nope'], { ...s, cwd: dir }));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^--adapter: unknown adapter 'nope'/);
  });

  it('internal: "internal error" and a bug line, no stack', async () => {
    const dir = upRepo();
    expectInternal(
      await inProcess((s) => up(['--plan', '--adapter', 'claude-code'], { ...s, cwd: dir }), { broken: true }),
      'gateline up',
      'gateline',
    );
  });

  it('interrupted: a real SIGINT to the real bin exits 130; under --json the run summary says so', async () => {
    const dir = upRepo();
    const fake = testdir();
    mkdirSync(join(fake, 'bin'));
    const started = join(fake, 'started');
    // A runner that never answers: it says it started, then waits.
    writeFileSync(
      join(fake, 'bin', 'claude'),
      `#!${process.execPath}\nrequire('node:fs').writeFileSync(${JSON.stringify(started)}, String(process.pid));\nsetInterval(() => {}, 1000);\n`,
    );
    chmodSync(join(fake, 'bin', 'claude'), 0o755);
    const child = spawn(process.execPath, [BIN, 'up', 'task', '--json', '--adapter', 'claude-code'], {
      cwd: dir,
      env: { ...process.env, NO_COLOR: '1', PATH: `${join(fake, 'bin')}:${process.env.PATH}` },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += String(chunk);
    });
    child.stderr.on('data', (chunk) => {
      stderr += String(chunk);
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    while (!existsSync(started)) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    const summary = JSON.parse(stdout);
    expect(summary).toMatchObject({
      ok: false,
      status: 'interrupted',
      exitCode: 130,
      problems: [{ file: 'gateline up', message: expect.stringMatching(/^interrupted: the runners were stopped/) }],
    });
    expect(JSON.parse(readFileSync(join(dir, '.gateline/runs', summary.id, 'summary.json'), 'utf8'))).toEqual(summary);
    expect(stderr).not.toMatch(STACK);
  });
});

describe('the gateline bin', () => {
  it('usage: exit 2 with the hint; under --json one object', () => {
    const dir = testdir();
    expectUsage(bin(['bogus'], dir), 'gateline', /unknown command 'bogus'/);
    expectUsage(bin([], dir), 'gateline', /no command given/);
    expectJsonUsage(bin(['bogus', '--json'], dir), 'gateline', /unknown command 'bogus'/);
  });

  it('problems: exit 1 as file: message, no stack; under --json one object', () => {
    const dir = testdir();
    const r = bin(['validate'], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^\.: no \.gateline\/framework-lock\.json here or above .* npm create gateline@latest/);
    expect(r.stderr).not.toMatch(STACK);
    const json = bin(['validate', '--json'], dir);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, problems: [{ file: '.' }] });
  });

  it('internal: a vendored core that throws is "internal error", not a raw stack; --verbose shows the stack', () => {
    const dir = host();
    writeFileSync(join(dir, '.gateline/core/src/cli.ts'), "export function main() { throw new Error('the disk is full'); }\n");
    expectInternal(bin(['render'], dir), 'gateline');
    const verbose = bin(['render', '--verbose'], dir);
    expect(verbose.code).toBe(1);
    expect(verbose.stderr).toMatch(/Error: the disk is full\n\s+at /);
  });

  // Interrupted through the bin: gateline up above, and the Ctrl-C test in up-run.test.ts.
});
