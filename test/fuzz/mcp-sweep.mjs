// The MCP server under fuzz (issue 35): `kinetoscope mcp --root ROOT` driven by the SDK's client
// over stdio with seeded calls — a random tool, random arguments drawn from its input schema —
// against a root built the way an attacker would ship one: links out of the root (a file, a
// folder, a rank inside a rank folder), FIFOs named like traces, a loop of links, a link to
// nothing, odd names (quotes, a newline, ESC, glob characters, a leading dash), and the fuzz
// cases of cases.mjs as its traces. Invariants: every call answers (a result or an error, never
// a closed pipe), the server process stays up, no answer carries the marker of the trace outside
// the root, and nothing outside the root (nor inside it) is created, changed or removed. Bounded
// by the number of calls; each call is bounded by the server's own --call-timeout.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, lstatSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { fuzzCase, lcg } from './cases.mjs';

const CLI = join(import.meta.dirname, '../../dist/bin/kinetoscope.js');
const H200 = join(import.meta.dirname, '../fixtures/traces/h200-torch2.11');
/** A kernel name only the trace outside the root holds: no answer may carry it. */
const MARKER = 'OUTSIDE_ROOT_MARKER_KERNEL';

/** Every file and folder under `dir` with its size and mtime (links not followed): a snapshot to compare. */
function snapshot(dir) {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = lstatSync(p);
      out.push(`${p} ${st.isDirectory() ? 'dir' : st.size} ${st.mtimeMs}`);
      if (st.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out.join('\n');
}

/** The hostile root and the folder outside it; the paths a call may name. */
function buildRoot(seed) {
  const base = mkdtempSync(join(tmpdir(), 'ks-fuzz-mcp-'));
  const root = join(base, 'root');
  const outside = join(base, 'outside');
  mkdirSync(join(root, 'job'), { recursive: true });
  mkdirSync(join(root, 'odd'), { recursive: true });
  mkdirSync(outside);
  const linear = JSON.parse(gunzipSync(readFileSync(join(H200, 'linear.pt.trace.json.gz'))).toString());
  const secret = structuredClone(linear);
  for (const e of secret.traceEvents) if (e.cat === 'kernel') e.name = `${MARKER}_${e.name}`;
  secret.distributedInfo = { rank: 0, world_size: 2 };
  writeFileSync(join(outside, 'secret.pt.trace.json'), JSON.stringify(secret));
  mkdirSync(join(outside, 'job'));
  writeFileSync(join(outside, 'job', 'rank-0.pt.trace.json'), JSON.stringify(secret));
  writeFileSync(join(root, 'linear.pt.trace.json'), JSON.stringify(linear));
  const rank1 = structuredClone(linear);
  rank1.distributedInfo = { rank: 1, world_size: 2 };
  writeFileSync(join(root, 'job', 'rank-1.pt.trace.json'), JSON.stringify(rank1));
  // Traces: the fuzz cases of this seed.
  for (let k = 0; k < 6; k++) {
    const c = fuzzCase(seed, k);
    writeFileSync(join(root, `case${k}${c.gz ? '.json.gz' : '.json'}`), c.bytes);
  }
  // Links out of the root, loops, links to nothing, FIFOs, odd names.
  symlinkSync(join(outside, 'secret.pt.trace.json'), join(root, 'job', 'rank-0.pt.trace.json'));
  symlinkSync(join(outside, 'secret.pt.trace.json'), join(root, 'link-out.pt.trace.json'));
  symlinkSync(outside, join(root, 'linkdir'));
  symlinkSync(join(outside, 'job'), join(root, 'job-out'));
  symlinkSync('/etc/passwd', join(root, 'passwd.json'));
  symlinkSync('loop-b.json', join(root, 'loop-a.json'));
  symlinkSync('loop-a.json', join(root, 'loop-b.json'));
  symlinkSync(join(outside, 'missing.json'), join(root, 'dangling-out.json'));
  symlinkSync('nothing.json', join(root, 'dangling.json'));
  for (const f of [join(root, 'fifo.pt.trace.json'), join(root, 'odd', 'rank-2.pt.trace.json')]) {
    if (spawnSync('mkfifo', [f]).status !== 0) throw new Error(`mkfifo ${f} failed`);
  }
  const odd = [`we'ird "name" $(touch PWNED) \`id\`.json`, 'new\nline.json', 'esc\x1b]0;T\x07.json', 'glob[1]*?.json', '-dash.json'];
  for (const n of odd) writeFileSync(join(root, 'odd', n), JSON.stringify(linear));
  const names = readdirSync(root).concat(readdirSync(join(root, 'odd')).map((n) => join('odd', n)));
  // Half the paths drawn are traces that read (the cases, linear, the odd names), so that the
  // analyses run too, not only the refusals.
  const good = ['linear.pt.trace.json', 'job', ...readdirSync(root).filter((n) => n.startsWith('case')), ...odd.map((n) => join('odd', n))];
  const paths = [
    ...names,
    'job', 'odd', 'job-out', 'linkdir', 'linkdir/secret.pt.trace.json', '.', '',
    join(outside, 'secret.pt.trace.json'), join(outside, 'nope.json'), '../outside/secret.pt.trace.json', '/etc/passwd', '/dev/zero', '/proc/self/environ',
    `${root}/../outside/secret.pt.trace.json`, '-', 'no-such-file.json',
  ];
  return { base, root, outside, paths, good };
}

const STRINGS = ['', '0', '1', '-1', '2-3', '1e15', 'NaN', 'x', '(', '^(a+)+$', '^(a+)+$=0.5', 'gemm=0.5', 'launch=0', '--json', '--write-expect=/tmp/x', '\x1b]0;T\x07', 'a'.repeat(5000)];
const QUERIES = ['SELECT count(*) FROM kernels', "SELECT * FROM read_text('/etc/hostname')", "COPY (SELECT 1) TO 'PLANTED.csv'", 'SELECT 1; SELECT 2', "ATTACH 'x.db'", 'INSTALL httpfs', 'SET threads=64', "SELECT * FROM glob('/*')", 'SELECT name FROM ops LIMIT 3'];

/** A random value for one property of a tool's input schema. */
function valueFor(key, prop, r, { paths, good }) {
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const isPath = /^(trace|traces|a|b|dir|file|files|inputs|vs|expect|peaks)$/.test(key);
  if (prop.type === 'boolean') return r() < 0.5;
  if (prop.type === 'integer') return pick([0, 1, 3, 20, 1_000_000]);
  if (key === 'query') return pick(QUERIES);
  if (key === 'sqlTimeout') return pick(['1', '5', '0', '-1']);
  if (key === 'jobs') return pick(['1', '200', '0']);
  const one = () => (prop.enum && r() < 0.8 ? pick(prop.enum) : isPath ? pick(r() < 0.5 ? good : paths) : pick(STRINGS));
  if (prop.type === 'array') return Array.from({ length: 1 + Math.floor(r() * 3) }, one);
  return one();
}

/**
 * `calls` seeded calls; resolves to {failures, calls, errors, results}. `callTimeoutS`: the
 * server's --call-timeout.
 */
export async function runMcpSweep({ seed = 35, calls = 40, callTimeoutS = 60, log = () => undefined } = {}) {
  const built = buildRoot(seed);
  const { base, root, outside } = built;
  const before = { root: snapshot(root), outside: snapshot(outside) };
  const client = new Client({ name: 'kinetoscope-fuzz', version: '1.0.0' });
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--root', root, '--call-timeout', String(callTimeoutS)], cwd: base, stderr: 'pipe' });
  const failures = [];
  let errors = 0;
  let results = 0;
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    const r = lcg(seed * 7919 + 1);
    for (let k = 0; k < calls; k++) {
      const tool = tools[Math.floor(r() * tools.length)];
      const props = tool.inputSchema.properties ?? {};
      const args = {};
      for (const [key, prop] of Object.entries(props)) {
        const required = tool.inputSchema.required?.includes(key);
        if (required || r() < 0.15) args[key] = valueFor(key, prop, r, built);
      }
      if (r() < 0.05) args.bogus = 1;
      const what = `call ${k}: ${tool.name} ${JSON.stringify(args).slice(0, 200)}`;
      let answer;
      try {
        // The client waits well past the server's own limit: an answer must come from the server.
        answer = await client.callTool({ name: tool.name, arguments: args }, undefined, { timeout: callTimeoutS * 10_000 });
      } catch (e) {
        failures.push(`${what}: no answer (${e.message})`);
        break;
      }
      if (answer.isError) errors++;
      else results++;
      const text = JSON.stringify(answer);
      if (text.includes(MARKER)) failures.push(`${what}: the answer carries the trace outside the root`);
      if (/root:x:0:0|INTERNAL/.test(text)) failures.push(`${what}: ${text.slice(0, 300)}`);
      if (transport.pid === null || !alive(transport.pid)) {
        failures.push(`${what}: the server is gone`);
        break;
      }
      log(`${k + 1} of ${calls} calls, ${failures.length} failures`);
    }
    // Still serving.
    if ((await client.listTools()).tools.length !== tools.length) failures.push('the tool list changed');
  } finally {
    await client.close().catch(() => undefined);
  }
  const after = { root: snapshot(root), outside: snapshot(outside) };
  if (after.outside !== before.outside) failures.push(`the folder outside the root changed:\n${after.outside}`);
  if (after.root !== before.root) failures.push(`the root changed:\n${after.root}`);
  const planted = readdirSync(base).filter((n) => !['root', 'outside'].includes(n));
  if (planted.length) failures.push(`files appeared beside the root: ${planted.join(', ')}`);
  rmSync(base, { recursive: true, force: true });
  return { failures, calls, errors, results };
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
