import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { type CliIo, run } from '../src/init/cli.ts';
import { CLEAN_ENV, gitRepo, install, packageAt, REPO, snapshot, testdir } from './helpers.ts';

// Drives create-gateline's interactive flow in-process: keys go into clack's input stream,
// the screen is read back from its output stream.

const ENTER = '\r';
const DOWN = '\x1b[B';
const SPACE = ' ';
const CTRL_C = '\x03';

const PROMPTS = {
  dir: 'Where is the repository?',
  adapters: 'Which runners',
  prefix: 'Folder for the vendored core',
  hook: 'Pre-commit hook',
  gitignore: 'Add the lines gateline needs to .gitignore?',
  confirm: 'Write these files?',
};

interface Terminal {
  io: CliIo;
  input: PassThrough;
  screen: () => string;
  stderr: () => string;
  /** Waits until `text` shows up after the previous match, then moves past it. */
  waitFor: (text: string) => Promise<void>;
  /** Waits for the prompt, then sends the keys. */
  answer: (prompt: string, ...keys: string[]) => Promise<void>;
}

function collector(tty: boolean): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  if (tty) Object.assign(stream, { isTTY: true, columns: 80, rows: 24 });
  return { stream, text: () => stripVTControlCharacters(text) };
}

function terminal(cwd: string, interactive = true): Terminal {
  const input = new PassThrough();
  Object.assign(input, { isTTY: true, setRawMode: () => input });
  const out = collector(true);
  const err = collector(false);
  let mark = 0;
  const waitFor = async (text: string) => {
    const deadline = Date.now() + 5_000;
    for (;;) {
      const at = out.text().indexOf(text, mark);
      if (at >= 0) {
        mark = at + text.length;
        return;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${JSON.stringify(text)}; screen:\n${out.text()}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  return {
    io: { stdout: out.stream, stderr: err.stream, cwd, interactive, input },
    input,
    screen: out.text,
    stderr: err.text,
    waitFor,
    answer: async (prompt, ...keys) => {
      await waitFor(prompt);
      for (const key of keys) input.write(key);
    },
  };
}

/** Enter at the four questions, then the given answer to the .gitignore fix. */
async function acceptDefaults(t: Terminal, gitignore: 'y' | 'n'): Promise<void> {
  for (const prompt of [PROMPTS.dir, PROMPTS.adapters, PROMPTS.prefix, PROMPTS.hook]) await t.answer(prompt, ENTER);
  await t.answer(PROMPTS.gitignore, gitignore);
}

/** Every path under `dir`, .git excluded. */
function listing(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((p) => p !== '.git' && !p.startsWith('.git/'))
    .sort();
}

function lockAdapters(dir: string, prefix = '.gateline'): string[] {
  return (JSON.parse(readFileSync(join(dir, prefix, 'framework-lock.json'), 'utf8')) as { adapters: string[] }).adapters;
}

describe('create-gateline prompts', () => {
  it('installs with every default when each question is answered with Enter', async () => {
    const dir = gitRepo();
    const t = terminal(dir);
    const done = run([], t.io);
    await acceptDefaults(t, 'y');
    await t.waitFor('About to change');
    await t.answer(PROMPTS.confirm, 'y');
    expect(await done, t.stderr()).toBe(0);
    for (const path of [
      '.gateline/framework-lock.json',
      '.claude/agents/reviewer.md',
      '.opencode/agents/reviewer.md',
      '.gemini/agents/implementer.md',
      '.git/hooks/pre-commit',
    ]) {
      expect(existsSync(join(dir, path)), path).toBe(true);
    }
    expect(lockAdapters(dir)).toEqual(['claude-code', 'codex', 'copilot', 'gemini-cli', 'opencode']);
    expect(t.screen()).toContain(
      'npm create gateline@latest -- --yes --adapter claude-code --adapter codex --adapter copilot --adapter gemini-cli --adapter opencode',
    );
  });

  it('renders only the runners left selected in the multiselect', async () => {
    const dir = gitRepo();
    const t = terminal(dir);
    const done = run([], t.io);
    await t.answer(PROMPTS.dir, ENTER);
    // The options are claude-code, codex, copilot, gemini-cli, opencode: move to gemini-cli and unselect it.
    await t.answer(PROMPTS.adapters, DOWN, DOWN, DOWN, SPACE, ENTER);
    await t.answer(PROMPTS.prefix, ENTER);
    await t.answer(PROMPTS.hook, ENTER);
    await t.answer(PROMPTS.gitignore, 'n');
    await t.answer(PROMPTS.confirm, 'y');
    expect(await done, t.stderr()).toBe(0);
    expect(existsSync(join(dir, '.claude/agents/reviewer.md'))).toBe(true);
    expect(existsSync(join(dir, '.opencode/agents/reviewer.md'))).toBe(true);
    expect(existsSync(join(dir, '.gemini'))).toBe(false);
    expect(lockAdapters(dir)).toEqual(['claude-code', 'codex', 'copilot', 'opencode']);
    expect(t.screen()).toContain(
      'npm create gateline@latest -- --yes --adapter claude-code --adapter codex --adapter copilot --adapter opencode\n',
    );
  });

  it('on a re-run offers the adapters of the existing lock, so Enter keeps them', async () => {
    const dir = gitRepo();
    expect((await install(dir, ['--yes', '--adapter', 'opencode'])).code).toBe(0);
    const t = terminal(dir);
    const done = run([], t.io);
    for (const prompt of [PROMPTS.dir, PROMPTS.adapters, PROMPTS.prefix, PROMPTS.hook]) await t.answer(prompt, ENTER);
    expect(await done, t.stderr()).toBe(0);
    // The .gitignore question was for the first install: a re-run does not ask it again (issue 13 item 11).
    expect(t.screen()).not.toContain(PROMPTS.gitignore);
    expect(t.screen()).toMatch(/already installed .* nothing to change/);
    expect(lockAdapters(dir)).toEqual(['opencode']);
    expect(existsSync(join(dir, '.claude'))).toBe(false);
  });

  it('a downgrade or major upgrade asks first, and Enter alone says no: nothing changes (issue 13 item 11)', async () => {
    const dir = gitRepo();
    expect((await install(dir, ['--yes'], { packageRoot: packageAt('2.0.0') })).code).toBe(0);
    const before = snapshot(dir);
    const t = terminal(dir);
    const done = run([], t.io);
    for (const prompt of [PROMPTS.dir, PROMPTS.adapters, PROMPTS.prefix, PROMPTS.hook]) await t.answer(prompt, ENTER);
    await t.answer('this downgrades gateline from 2.0.0 to 0.1.0', ENTER);
    await done;
    expect(snapshot(dir)).toEqual(before);
  });

  it('shows what it found first, and refusing git init changes nothing', async () => {
    const dir = testdir({ 'notes.txt': 'x\n' });
    const t = terminal(dir);
    const done = run([], t.io);
    await t.answer(PROMPTS.dir, ENTER);
    await t.waitFor('What I found');
    await t.waitFor('not a git repository');
    await t.answer(PROMPTS.adapters, ENTER);
    await t.answer(PROMPTS.prefix, ENTER);
    await t.answer(PROMPTS.hook, ENTER);
    await t.answer('Run git init here?', 'n');
    expect(await done).toBe(0);
    expect(t.screen()).toContain('Cancelled: nothing was written.');
    expect(readdirSync(dir)).toEqual(['notes.txt']);
  });

  it('writes nothing when the Ctrl-C key (0x03 on the raw-mode input) is typed at the first question', async () => {
    const dir = gitRepo();
    const before = listing(dir);
    const t = terminal(dir);
    const done = run([], t.io);
    await t.answer(PROMPTS.dir, CTRL_C);
    expect(await done).toBe(0);
    expect(t.screen()).toContain('Cancelled: nothing was written.');
    expect(t.screen()).not.toContain(PROMPTS.adapters);
    expect(before).toEqual([]);
    expect(listing(dir)).toEqual(before);
    expect(readdirSync(dir)).toEqual(['.git']);
  });

  // A real terminal: the installer's bin under a pseudo-terminal that script(1) opens, the key
  // typed into it as a person types it.
  const script = ['/usr/bin/script', '/bin/script'].find((p) => existsSync(p));
  it('writes nothing when Ctrl-C is pressed at the first question in a real terminal', async (ctx) => {
    const pty = script ?? ctx.skip('no script(1) here to open a pseudo-terminal with');
    const dir = gitRepo();
    const before = snapshot(dir);
    const env: Record<string, string | undefined> = { ...CLEAN_ENV, TERM: 'xterm' };
    delete env.CI; // the installer asks nothing in CI
    const command = `stty cols 80 rows 24; exec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(REPO, 'src/bin/create-gateline.ts'))}`;
    const child = spawn(pty, ['-qefc', command, '/dev/null'], { cwd: dir, env, stdio: ['pipe', 'pipe', 'pipe'] });
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let screen = '';
    let pressed = false;
    const collect = (chunk: Buffer) => {
      screen += stripVTControlCharacters(String(chunk));
      if (!pressed && screen.includes(PROMPTS.dir)) {
        pressed = true;
        setTimeout(() => child.stdin.write(CTRL_C), 100);
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(pressed, screen).toBe(true);
    expect(code, screen).toBe(0);
    expect(screen).toContain('Cancelled: nothing was written.');
    expect(screen).not.toContain(PROMPTS.adapters);
    expect(snapshot(dir)).toEqual(before);
  });

  it('writes nothing when the final confirm is answered no', async () => {
    const dir = gitRepo();
    const before = listing(dir);
    const t = terminal(dir);
    const done = run([], t.io);
    await acceptDefaults(t, 'n');
    await t.waitFor('About to change');
    await t.answer(PROMPTS.confirm, 'n');
    expect(await done).toBe(0);
    expect(t.screen()).toContain('Cancelled: nothing was written.');
    expect(listing(dir)).toEqual(before);
    expect(readdirSync(dir)).toEqual(['.git']);
    expect(existsSync(join(dir, '.git/hooks/pre-commit'))).toBe(false);
  });

  it('asks only what the flags did not say', async () => {
    const dir = gitRepo();
    const t = terminal(dir);
    const done = run(['--prefix', '.agents', '--hook', 'none', '--adapter', 'opencode', '--gitignore'], t.io);
    await t.answer(PROMPTS.dir, ENTER);
    await t.answer(PROMPTS.confirm, 'y');
    expect(await done, t.stderr()).toBe(0);
    const screen = t.screen();
    expect(screen).not.toContain(PROMPTS.adapters);
    expect(screen).not.toContain(PROMPTS.prefix);
    expect(screen).not.toContain(PROMPTS.hook);
    expect(existsSync(join(dir, '.agents/framework-lock.json'))).toBe(true);
    expect(existsSync(join(dir, '.gateline'))).toBe(false);
    expect(existsSync(join(dir, '.opencode/agents/reviewer.md'))).toBe(true);
    expect(existsSync(join(dir, '.claude'))).toBe(false);
    expect(existsSync(join(dir, '.git/hooks/pre-commit'))).toBe(false);
    expect(lockAdapters(dir, '.agents')).toEqual(['opencode']);
    expect(screen).toContain('npm create gateline@latest -- --yes --adapter opencode --prefix .agents --hook none --gitignore');
  });

  describe('without prompts', () => {
    const never = async (code: Promise<number>): Promise<number> =>
      Promise.race([
        code,
        new Promise<number>((_, reject) => setTimeout(() => reject(new Error('run() waited for input')), 20_000).unref()),
      ]);

    it('--yes never reads the input, even on a TTY', async () => {
      const dir = gitRepo();
      const t = terminal(dir);
      expect(await never(run(['--yes'], { ...t.io, interactive: true })), t.stderr()).toBe(0);
      for (const prompt of Object.values(PROMPTS)) expect(t.screen()).not.toContain(prompt);
      expect(t.screen()).not.toContain('create-gateline\n');
      expect(t.screen()).toContain('Installed gateline');
      expect(existsSync(join(dir, '.gateline/framework-lock.json'))).toBe(true);
    });

    it('a non-interactive run without flags never reads the input', async () => {
      const dir = gitRepo();
      const t = terminal(dir, false);
      expect(await never(run([], t.io)), t.stderr()).toBe(0);
      for (const prompt of Object.values(PROMPTS)) expect(t.screen()).not.toContain(prompt);
      expect(t.screen()).toContain('Installed gateline');
      expect(t.screen()).not.toContain('To repeat this without prompts');
      expect(existsSync(join(dir, '.gateline/framework-lock.json'))).toBe(true);
    });
  });
});

describe('the repository folder (issue 13 item 5)', () => {
  it('the prompt refuses a folder that does not exist, and "What I found" describes the folder typed', async () => {
    const dir = testdir(); // the current folder is not a repository, sub is
    const sub = gitRepo({ 'notes.txt': 'x\n' });
    renameSync(sub, join(dir, 'sub'));
    const t = terminal(dir);
    const done = run([], t.io);
    await t.answer(PROMPTS.dir, ...'nosuchdir', ENTER);
    await t.waitFor('does not exist: create it first');
    for (let i = 0; i < 'nosuchdir'.length; i++) t.input.write('\x7f');
    t.input.write('sub');
    t.input.write(ENTER);
    await t.waitFor('What I found');
    await t.waitFor('+ a git repository');
    await t.answer(PROMPTS.adapters, CTRL_C);
    expect(await done).toBe(0);
    expect(t.screen()).not.toContain('not a git repository');
    expect(readdirSync(join(dir, 'sub')).sort()).toEqual(['.git', 'notes.txt']);
  });

  it('a directory that does not exist, with --git-init: a clear error, exit 1, no "internal error"', async () => {
    const dir = testdir();
    const run1 = await install(dir, ['nosuchdir', '--yes', '--git-init']);
    expect(run1.code).toBe(1);
    expect(run1.stderr).toMatch(/nosuchdir does not exist: create it first/);
    expect(run1.stderr).not.toMatch(/internal error|bug|\n\s+at /);
    expect(existsSync(join(dir, 'nosuchdir'))).toBe(false);
  });
});
