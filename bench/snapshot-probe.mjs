/**
 * `node bench/snapshot-probe.mjs`: the experiment behind docs/performance.md's "A start-up
 * snapshot" (issue 38.2): would a V8 start-up snapshot of the command line bring a command on a
 * small trace near a bare `node -e 0`? A prototype, not a way the CLI runs: it builds the blob
 * into .bench-out/snapshot/ and measures it against the shipped CLI in the same rounds.
 *
 * What it builds (Node 20's user-land snapshot: `node --snapshot-blob BLOB --build-snapshot
 * ENTRY`, the entry one CommonJS script that requires only built-ins):
 * - one file, every package bundled in (rolldown, dynamic imports inlined), whitespace removed
 *   and non-ASCII escaped (a one-byte source string: a smaller heap to deserialise);
 * - the commands that read one trace only (the others stubbed out: the MCP SDK, zod's and ajv's
 *   code, DuckDB, the report page would only enlarge the heap every call deserialises);
 * - every command module evaluated and the program built once at build time, so the blob holds
 *   the evaluated modules and the built-ins they loaded;
 * - the built-ins Node does not vouch for in a snapshot (child_process, module, vm,
 *   worker_threads, http) required on first use, after deserialisation (commander still
 *   requires child_process while the blob is built: Node warns, the probe's output is unchanged).
 * At run time (`node --snapshot-blob BLOB COMMAND TRACE`) the deserialised main function parses
 * process.argv as the CLI does. Its output is compared with the CLI's before anything is timed.
 *
 *   node bench/snapshot-probe.mjs                 # 21 interleaved rounds
 *   node bench/snapshot-probe.mjs --rounds 41
 *
 * Needs `dist/` (npm run build) and /usr/bin/time; CPU times are GNU time's (10 ms steps), as in
 * bench/commands.mjs. Writes .bench-out/snapshot/ (the bundle, the blob, probe.md).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { rolldown } from 'rolldown';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
// Two levels under the package root, as dist/bin/ is: the paths the code finds from its own
// file (../../build/Release, ../../schema) hold for the bundle too.
const OUT = join(ROOT, '.bench-out/snapshot');
const CLI = join(ROOT, 'dist/bin/kinetoscope.js');
const SMALL = join(ROOT, 'test/fixtures/traces/h200-torch2.11/linear.pt.trace.json.gz');
const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1] || 21);

/** In the blob: the commands that read one trace (commands/index.ts's first group). */
const LEFT_OUT = ['diff', 'check', 'ranks', 'export', 'sql', 'report', 'perfetto', 'crop', 'schema', 'mcp'];
/** Built-ins Node 20's snapshot builder warns about: required on first use instead. */
const LAZY_BUILTINS = ['child_process', 'module', 'vm', 'worker_threads', 'http'];

if (!existsSync(CLI)) {
  process.stderr.write('bench/snapshot-probe.mjs: dist/ is missing; run `npm run build` first\n');
  process.exit(2);
}
mkdirSync(OUT, { recursive: true });

const url = (p) => pathToFileURL(join(ROOT, p)).href;
const ENTRY = join(OUT, 'entry.mjs');
writeFileSync(
  ENTRY,
  `import { startupSnapshot } from 'node:v8';
import { buildProgram, runProgram, wantedCommands } from ${JSON.stringify(url('dist/cli/program.js'))};
import { COMMANDS, loadSpec } from ${JSON.stringify(url('dist/cli/commands/index.js'))};
import { endRedaction } from ${JSON.stringify(url('dist/cli/redaction.js'))};
import { tuneCompilerForOneTrace } from ${JSON.stringify(url('dist/compiler-flags.js'))};

const IN_BLOB = Object.keys(COMMANDS).filter((n) => !${JSON.stringify(LEFT_OUT)}.includes(n));
// Evaluated now, into the blob: every module of these commands, and the program once.
void Promise.all(IN_BLOB.map(loadSpec)).then(() => buildProgram(IN_BLOB));

startupSnapshot.setDeserializeMainFunction(() => {
  if (process.env.SNAPSHOT_PROBE_NOOP) return; // the cost of deserialising alone
  tuneCompilerForOneTrace();
  // Run from a blob, argv[1] is the first argument: put a script path back where commander expects one.
  const argv = [process.argv[0], 'kinetoscope', ...process.argv.slice(1)];
  if (!IN_BLOB.includes(argv[2])) throw new Error('snapshot probe: only ' + IN_BLOB.join(', '));
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e) => {
      if (e.code !== 'EPIPE') throw e;
      const summary = endRedaction();
      if (summary && stream === process.stdout) process.stderr.write(summary);
      process.exit(process.exitCode ?? 0);
    });
  }
  void buildProgram(wantedCommands(argv[2]))
    .then((program) => runProgram(program, argv, 'node'))
    .then((status) => { if (status !== undefined) process.exitCode = status; });
});
`,
);

const stub = {
  name: 'leave-commands-out',
  resolveId(id, importer) {
    if (importer?.endsWith('/cli/commands/index.js') && LEFT_OUT.some((c) => id === `./${c}.js`)) return `\0left-out:${id}`;
  },
  load(id) {
    if (id.startsWith('\0left-out:')) return 'export const spec = undefined;';
  },
};
const isBuiltin = (id) => id.startsWith('node:') || ['fs', 'path', 'os', 'url', 'util', 'events', 'stream', 'zlib', 'child_process', 'worker_threads', 'tty', 'crypto', 'process', 'v8', 'module', 'readline', 'assert', 'buffer', 'string_decoder', 'net', 'http', 'vm'].includes(id);
const bundle = await rolldown({
  input: { probe: ENTRY },
  platform: 'node',
  // Packages bundled (the entry may require built-ins only); the native addon and DuckDB stay outside.
  external: (id) => isBuiltin(id) || id.endsWith('.node') || id.startsWith('@duckdb/'),
  plugins: [stub],
  logLevel: 'silent',
});
await bundle.write({
  dir: OUT,
  format: 'cjs',
  codeSplitting: false,
  entryFileNames: '[name].cjs',
  minify: { compress: false, mangle: false, codegen: { removeWhitespace: true, asciiOnly: true } },
  comments: { legal: false, annotation: false, jsdoc: false },
});
await bundle.close();

const SCRIPT = join(OUT, 'probe.cjs');
let code = readFileSync(SCRIPT, 'utf8');
const lazy = `const __lazyBuiltin=(id)=>{let m;const get=()=>(m??=require(id));return new Proxy({},{get:(_,k)=>get()[k],has:(_,k)=>k in get(),ownKeys:()=>Reflect.ownKeys(get()),getOwnPropertyDescriptor:(_,k)=>{const d=Reflect.getOwnPropertyDescriptor(get(),k);return d&&{...d,configurable:true}}})};\n`;
for (const id of LAZY_BUILTINS) code = code.replace(new RegExp(`\\b(let|var|const) node_${id}\\s*=\\s*require\\("node:${id}"\\)`), `$1 node_${id}=__lazyBuiltin("node:${id}")`);
writeFileSync(SCRIPT, lazy + code);

const BLOB = join(OUT, 'probe.blob');
const built = spawnSync(process.execPath, ['--snapshot-blob', BLOB, '--build-snapshot', SCRIPT], { encoding: 'utf8' });
if (built.status !== 0) throw new Error(`building the blob: exit ${built.status}: ${built.stderr}`);
const warned = [...built.stderr.matchAll(/built-in module "([^"]+)"/g)].map((m) => m[1]);

/** node ARGS → { cpuS, wallS, stdout }, CPU from GNU time (user + system). */
function timed(nodeArgs, env = {}) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', 'TIME %U %S', process.execPath, ...nodeArgs], { encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 1 << 26 });
  const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
  const m = /TIME ([\d.]+) ([\d.]+)\s*$/.exec(r.stderr);
  if (r.status !== 0 || !m) throw new Error(`node ${nodeArgs.join(' ')}: exit ${r.status}: ${r.stderr.trim().split('\n').slice(-3).join(' ')}`);
  return { cpuS: Number(m[1]) + Number(m[2]), wallS, stdout: r.stdout };
}

const ROWS = {
  'node -e 0': [['-e', '0']],
  'snapshot, main does nothing': [['--snapshot-blob', BLOB, 'x'], { SNAPSHOT_PROBE_NOOP: '1' }],
  'summary SMALL, the CLI': [[CLI, 'summary', SMALL]],
  'summary SMALL, snapshot': [['--snapshot-blob', BLOB, 'summary', SMALL]],
  'explain SMALL, the CLI': [[CLI, 'explain', SMALL]],
  'explain SMALL, snapshot': [['--snapshot-blob', BLOB, 'explain', SMALL]],
};
for (const cmd of ['summary', 'explain']) {
  const a = timed(ROWS[`${cmd} SMALL, the CLI`][0]).stdout;
  const b = timed(ROWS[`${cmd} SMALL, snapshot`][0]).stdout;
  if (a !== b) throw new Error(`${cmd}: the snapshot's output differs from the CLI's`);
}

const names = Object.keys(ROWS);
const runs = Object.fromEntries(names.map((n) => [n, []]));
const loads = [];
for (let k = 0; k < rounds; k++) {
  loads.push(loadavg()[0]);
  for (const n of k % 2 ? [...names].reverse() : names) runs[n].push(timed(...ROWS[n]));
  process.stderr.write(`round ${k + 1}/${rounds}\n`);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const base = { cpu: median(runs[names[0]].map((r) => r.cpuS)), wall: median(runs[names[0]].map((r) => r.wallS)) };
const md = [
  `${rounds} interleaved rounds; ${cpus().length} cores (${cpus()[0]?.model}), Node ${process.version}, load average ${median(loads).toFixed(2)} (median at the rounds' starts).`,
  `Blob ${(statSync(BLOB).size / 1e6).toFixed(1)} MB from a ${(statSync(SCRIPT).size / 1e6).toFixed(2)} MB script; built-ins the builder warned about: ${warned.join(', ') || 'none'}.`,
  '',
  '| | wall (ms) | ÷ `node -e 0` | CPU (ms) | ÷ `node -e 0` |',
  '|---|---|---|---|---|',
  ...names.map((n) => {
    const wall = median(runs[n].map((r) => r.wallS));
    const cpu = median(runs[n].map((r) => r.cpuS));
    return `| ${n} | ${(wall * 1000).toFixed(0)} | ${(wall / base.wall).toFixed(2)} | ${(cpu * 1000).toFixed(0)} | ${(cpu / base.cpu).toFixed(2)} |`;
  }),
];
writeFileSync(join(OUT, 'probe.md'), `${md.join('\n')}\n`);
process.stdout.write(`${md.join('\n')}\n`);
