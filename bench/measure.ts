// Measures a command as the kernel accounts for it: CPU (user + sys of the child), peak memory
// (maxRSS) and wall time, each as median, min and max over `runs` (after one warm-up run).
// Node cannot read a child's rusage, so a few lines of Python (wait4) run the child.
import { spawnSync } from 'node:child_process';

const WAIT4 = `
import json, os, shutil, sys, time
spec = json.loads(sys.argv[1])
out = []
for i in range(spec["runs"] + 1):
    for path in spec["reset"]:
        shutil.rmtree(path, ignore_errors=True)
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.chdir(spec["cwd"])
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        os.execve(spec["argv"][0], spec["argv"], spec["env"])
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != spec["status"]:
        print(json.dumps({"failed": os.waitstatus_to_exitcode(status)}))
        sys.exit(0)
    if i > 0:
        out.append({"cpu": (usage.ru_utime + usage.ru_stime) * 1e3, "wall": wall * 1e3, "rss": usage.ru_maxrss / 1024})
print(json.dumps(out))
`;

export interface Stat {
  median: number;
  min: number;
  max: number;
}
export interface Measured {
  cpu: Stat;
  wall: Stat;
  /** MiB */
  rss: Stat;
}

export interface Options {
  cwd: string;
  runs: number;
  env?: Record<string, string | undefined>;
  /** Folders removed before every run, untimed (a cold render). */
  reset?: string[];
  /** The exit code every run must have. */
  status?: number;
}

export function measure(argv: string[], { cwd, runs, env = {}, reset = [], status = 0 }: Options): Measured {
  const spec = {
    argv,
    cwd,
    runs,
    reset,
    status,
    env: Object.fromEntries(Object.entries({ ...process.env, ...env }).filter(([, v]) => v !== undefined)),
  };
  const run = spawnSync('python3', ['-c', WAIT4, JSON.stringify(spec)], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (run.status !== 0) throw new Error(`python3 (needed to read the child's CPU and memory) failed: ${run.stderr || run.error}`);
  const result = JSON.parse(run.stdout) as { cpu: number; wall: number; rss: number }[] | { failed: number };
  if (!Array.isArray(result)) {
    const again = spawnSync(argv[0] as string, argv.slice(1), { cwd, encoding: 'utf8', env: spec.env });
    throw new Error(`${argv.join(' ')} exited ${result.failed} in ${cwd}:\n${again.stdout}\n${again.stderr}`);
  }
  const stat = (key: 'cpu' | 'wall' | 'rss'): Stat => {
    const values = result.map((r) => r[key]).sort((a, b) => a - b);
    return { median: values[Math.floor(values.length / 2)] as number, min: values[0] as number, max: values.at(-1) as number };
  };
  return { cpu: stat('cpu'), wall: stat('wall'), rss: stat('rss') };
}
