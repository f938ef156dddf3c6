// The naive floor of `render --check`: zero dependencies, no checks, no rules. It builds each
// agent file the shortest way (the role's frontmatter cut out, a fixed per-adapter head glued on)
// and compares it with the disk. Usage: node bench/floor.mjs <checkout> <shapes.json> [--write];
// exits 1 if any file differs, so a clean exit on gateline's output proves the bytes identical.
// With --write it writes every file instead (each folder made once, one write per file, not
// atomic): the floor of a cold render, which is mostly the kernel creating files.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [root, shapesFile, mode] = process.argv.slice(2);
const shapes = JSON.parse(readFileSync(shapesFile, 'utf8'));
const write = mode === '--write';
if (write) for (const { dir } of shapes) mkdirSync(join(root, dir), { recursive: true });
const roles = readdirSync(join(root, 'roles')).map((f) => f.slice(0, -3));
let same = 0;
let differ = 0;
for (const role of roles) {
  const spec = readFileSync(join(root, 'roles', `${role}.md`), 'utf8');
  const end = spec.indexOf('\n---\n', 3);
  const dispatch = /^dispatch: (.*)$/m.exec(spec.slice(0, end))[1];
  const body = spec
    .slice(end + 5)
    .replace(/^\n+/, '')
    .trimEnd();
  for (const { dir, filename, middle, header } of shapes) {
    const want = `---\nname: ${role}\ndescription: ${dispatch}\n${middle}---\n${header.replaceAll('{role}', role)}\n\n${body}\n`;
    if (write) {
      writeFileSync(join(root, dir, filename.replaceAll('{role}', role)), want);
      continue;
    }
    let have;
    try {
      have = readFileSync(join(root, dir, filename.replaceAll('{role}', role)), 'utf8');
    } catch {}
    if (have === want) same++;
    else differ++;
  }
}
process.stdout.write(write ? `${roles.length * shapes.length} files written\n` : `${same} files up to date, ${differ} differ\n`);
process.exitCode = differ ? 1 : 0;
