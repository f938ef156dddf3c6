import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from './helpers.ts';

// src/start/stdio.mjs: where output is a pipe or a file the core writes with a plain synchronous
// write instead of Node's stream. Whatever reads the pipe must get every byte, in order, and a
// reader that goes away must not turn into a crash.

const STDIO = join(REPO, 'src/start/stdio.mjs');
/** A child that prints `lines` lines of 100 bytes (6.4 MB at 64000) through `how`, then 'done' on stderr. */
const printer = (how: 'output' | 'process.stdout' | 'writeSync', lines: number) => {
  const write = {
    output: 'const out = output(1); const put = (t) => out.write(t);',
    'process.stdout': 'const put = (t) => process.stdout.write(t);',
    writeSync: "const { writeSync } = await import('node:fs'); const put = (t) => writeSync(1, t);",
  }[how];
  return `import { output } from ${JSON.stringify(STDIO)}; ${write}
for (let i = 0; i < ${lines}; i++) put(String(i).padStart(99, '.') + '\\n');
process.stderr.write('done\\n');`;
};

describe('the core writes to pipes and files directly', () => {
  it('a reader that goes away ends the printing, not the run: no EPIPE crash, exit 0', () => {
    const run = (how: Parameters<typeof printer>[0]) =>
      spawnSync('bash', ['-o', 'pipefail', '-c', `"$NODE" --input-type=module -e "$CODE" | head -c 100 >/dev/null`], {
        encoding: 'utf8',
        env: { ...process.env, NODE: process.execPath, CODE: printer(how, 64_000) },
      });
    const ours = run('output');
    expect(ours.stderr).toBe('done\n');
    expect(ours.status).toBe(0);
    // The negative control: Node's own stream dies of the closed pipe.
    const node = run('process.stdout');
    expect(node.stderr).toMatch(/EPIPE/);
    expect(node.status).not.toBe(0);
  });

  it('a pipe its reader made non-blocking still gets every byte, in order', () => {
    // Python makes the pipe, sets the child's end non-blocking and reads slowly, so it fills.
    const reader = `
import os, subprocess, sys, time
r, w = os.pipe()
os.set_blocking(w, False)
child = subprocess.Popen([sys.argv[1], '--input-type=module', '-e', sys.argv[2]], stdout=w, stderr=subprocess.PIPE)
os.close(w)
time.sleep(0.3)
data = b''
while True:
    chunk = os.read(r, 1 << 16)
    if not chunk:
        break
    data += chunk
    time.sleep(0.001)
err = child.stderr.read().decode()
print(child.wait(), len(data), data == b''.join(str(i).rjust(99, '.').encode() + b'\\n' for i in range(20000)), err.strip().split('\\n')[0] if err.endswith('done\\n') else 'EAGAIN' in err)
`;
    const read = (how: Parameters<typeof printer>[0]) =>
      spawnSync('python3', ['-c', reader, process.execPath, printer(how, 20_000)], { encoding: 'utf8' }).stdout.trim();
    expect(read('output')).toBe('0 2000000 True done');
    // The negative control: a bare write gives up with EAGAIN once the pipe is full.
    expect(read('writeSync')).toMatch(/^1 \d+ False True$/);
  });
});
