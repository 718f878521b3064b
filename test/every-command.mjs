// Runs every read-only command in-process on each trace named (argv[2..]) and prints one JSON
// line per trace: the trace, and per command its exit status and whether it reported an
// internal error. Used by test/cli/every-command.test.ts to check that no input makes any command
// crash or hang (one process for all the traces: node's start and the imports paid once).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dist = new URL('../dist/cli/commands/', import.meta.url);
const { commandOf } = await import(new URL('../command-spec.js', dist).href);
const write = process.stdout.write.bind(process.stdout);
for (const trace of process.argv.slice(2)) {
  const tmp = mkdtempSync(join(tmpdir(), 'ks-every-'));
  const runs = [
    ['summary', []], ['summary', ['--json', '--group-by', 'shape']], ['tree', []], ['kernels', ['--json']],
    ['steps', []], ['steps', ['--json']], ['launches', []], ['breakdown', []], ['breakdown', ['--hta-compat']],
    ['doctor', ['--json']], ['gemm', []], ['roofline', ['--json']], ['ops', []], ['fusion', []], ['compile', []], ['explain', []],
    ['diff', [trace]], ['check', ['--write-expect', join(tmp, 'x.yaml')]], ['report', ['-o', join(tmp, 'r.html')]],
    ['critical-path', ['--what-if', 'launch=0']],
    ['memory', []], ['memory', ['--json']], ['modules', []], ['modules', ['--json']], ['summary', ['--memory']], ['summary', ['--group-by', 'module']],
  ];
  const out = [];
  for (const [name, extra] of runs) {
    const { spec } = await import(new URL(`${name}.js`, dist).href);
    const make = () => commandOf(spec);
    let stderr = '';
    const errWrite = process.stderr.write.bind(process.stderr);
    process.stdout.write = () => true;
    process.stderr.write = (s) => ((stderr += String(s)), true);
    process.exitCode = undefined;
    try {
      await make().exitOverride().parseAsync([trace, ...extra], { from: 'user' });
    } catch (e) {
      stderr += `THROWN ${e?.message ?? e}`;
    } finally {
      process.stdout.write = write;
      process.stderr.write = errWrite;
    }
    out.push({ command: [name, ...extra].join(' '), status: process.exitCode ?? 0, internal: /INTERNAL|THROWN/.test(stderr) ? stderr.slice(0, 300) : '' });
  }
  process.exitCode = 0;
  write(`${JSON.stringify({ trace, results: out })}\n`);
}
