// Measures commands as the kernel accounts for them: CPU (user + sys of the child), peak memory
// (maxRSS) and wall time, each as median, min and max over `runs` (after one warm-up round).
// Commands compared with each other are measured together, taking turns run by run, so a
// machine that slows down or speeds up meanwhile moves them alike and their ratio stays honest.
// Node cannot read a child's rusage, so a few lines of Python (wait4) run the children.
import { spawnSync } from 'node:child_process';

const WAIT4 = `
import json, os, shutil, sys, time
spec = json.loads(sys.argv[1])
out = [[] for _ in spec["commands"]]
os.sync()  # files just written (a generated checkout) are not flushed during a timed run
for i in range(spec["runs"] + 1):
    for k, command in enumerate(spec["commands"]):
        for path in command["reset"]:
            shutil.rmtree(path, ignore_errors=True)
        if command["reset"]:
            os.sync()
        start = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            os.chdir(command["cwd"])
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
            os.execve(command["argv"][0], command["argv"], command["env"])
        _, status, usage = os.wait4(pid, 0)
        wall = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != command["status"]:
            print(json.dumps({"failed": k, "code": os.waitstatus_to_exitcode(status)}))
            sys.exit(0)
        if i > 0:
            out[k].append({"cpu": (usage.ru_utime + usage.ru_stime) * 1e3, "wall": wall * 1e3, "rss": usage.ru_maxrss / 1024})
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

export interface Command {
  argv: string[];
  cwd: string;
  env?: Record<string, string | undefined>;
  /** Folders removed before every run, untimed (a cold render). */
  reset?: string[];
  /** The exit code every run must have. */
  status?: number;
}

/** Measures the commands together, one run of each in turn, `runs` times: one result per command. */
export function measureTogether(commands: Command[], runs: number): Measured[] {
  const spec = {
    runs,
    commands: commands.map(({ argv, cwd, env = {}, reset = [], status = 0 }) => ({
      argv,
      cwd,
      reset,
      status,
      env: Object.fromEntries(Object.entries({ ...process.env, ...env }).filter(([, v]) => v !== undefined)),
    })),
  };
  const run = spawnSync('python3', ['-c', WAIT4, JSON.stringify(spec)], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (run.status !== 0) throw new Error(`python3 (needed to read the child's CPU and memory) failed: ${run.stderr || run.error}`);
  type Row = { cpu: number; wall: number; rss: number };
  const result = JSON.parse(run.stdout) as Row[][] | { failed: number; code: number };
  if (!Array.isArray(result)) {
    const failed = spec.commands[result.failed] as (typeof spec.commands)[number];
    const again = spawnSync(failed.argv[0] as string, failed.argv.slice(1), { cwd: failed.cwd, encoding: 'utf8', env: failed.env });
    throw new Error(`${failed.argv.join(' ')} exited ${result.code} in ${failed.cwd}:\n${again.stdout}\n${again.stderr}`);
  }
  return result.map((rows) => {
    const stat = (key: keyof Row): Stat => {
      const values = rows.map((r) => r[key]).sort((a, b) => a - b);
      return { median: values[Math.floor(values.length / 2)] as number, min: values[0] as number, max: values.at(-1) as number };
    };
    return { cpu: stat('cpu'), wall: stat('wall'), rss: stat('rss') };
  });
}
