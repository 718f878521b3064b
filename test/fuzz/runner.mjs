// Runs every read-only command in-process on each trace named in argv (one process, many cases)
// and prints one JSON line per case as soon as it is done: each command's exit status, any
// internal error or stack trace written, a digest of `summary --json` and of the model
// (to compare the native reader with the JavaScript one: run once with KINETOSCOPE_NATIVE=0),
// and the model's integrity walk. A case that kills the process is the one after the last line.
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dist = new URL('../../dist/', import.meta.url);
const { loadTrace } = await import(new URL('load-trace.js', dist).href);
const { checkModelIntegrity } = await import(new URL('model/integrity.js', dist).href);
const { isKinetoscopeError } = await import(new URL('core/errors.js', dist).href);
const tmp = mkdtempSync(join(tmpdir(), 'ks-fuzz-'));
const RUNS = [
  ['summary', ['--json']], ['summary', ['--group-by', 'shape']], ['tree', []], ['tree', ['--json']], ['kernels', ['--json']],
  ['steps', []], ['launches', []], ['breakdown', []], ['doctor', ['--json']], ['gemm', []], ['ops', []], ['fusion', []],
  ['compile', []], ['explain', []], ['check', ['--write-expect', '-']],
];
const write = process.stdout.write.bind(process.stdout);
const errWrite = process.stderr.write.bind(process.stderr);
const makers = {};
const { commandOf } = await import(new URL('cli/command-spec.js', dist).href);
for (const [name] of RUNS) {
  const { spec } = await import(new URL(`cli/commands/${name}.js`, dist).href);
  makers[name] ??= () => commandOf(spec);
}

for (const trace of process.argv.slice(2)) {
  const result = { trace, statuses: {}, problems: [], summary: '', model: '' };
  for (const [name, extra] of RUNS) {
    let out = '';
    let err = '';
    process.stdout.write = (s) => ((out += String(s)), true);
    process.stderr.write = (s) => ((err += String(s)), true);
    process.exitCode = undefined;
    try {
      await makers[name]().exitOverride().parseAsync([trace, ...extra], { from: 'user' });
    } catch (e) {
      err += `THROWN ${e?.stack ?? e}`;
    } finally {
      process.stdout.write = write;
      process.stderr.write = errWrite;
    }
    const cmd = [name, ...extra].join(' ');
    const status = process.exitCode ?? 0;
    result.statuses[cmd] = status;
    if (![0, 1, 2].includes(status)) result.problems.push(`${cmd}: exit ${status}`);
    if (/INTERNAL|THROWN|\n\s+at .+:\d+:\d+/.test(err)) result.problems.push(`${cmd}: ${err.slice(0, 400)}`);
    if (status === 2 && err.split('\n').filter(Boolean).length !== 1) result.problems.push(`${cmd}: exit 2 with more than one line: ${err.slice(0, 400)}`);
    if (cmd === 'summary --json') result.summary = createHash('sha256').update(status === 0 ? out : err).digest('hex').slice(0, 16);
  }
  try {
    const m = await loadTrace(trace);
    const bad = checkModelIntegrity(m);
    if (bad.length) result.problems.push(`integrity: ${bad.slice(0, 3).join('; ')}`);
    result.model = createHash('sha256')
      .update(JSON.stringify([m.host.length, m.gpu.length, Array.from(m.host.startNs), Array.from(m.host.durNs), Array.from(m.gpu.startNs), m.diagnostics.map((d) => [d.code, d.count ?? 1])]))
      .digest('hex')
      .slice(0, 16);
  } catch (e) {
    if (!isKinetoscopeError(e)) result.problems.push(`loadTrace: ${e?.stack ?? e}`);
    else result.model = `error ${e.code}`;
  }
  process.exitCode = 0;
  write(`${JSON.stringify(result)}\n`);
}
