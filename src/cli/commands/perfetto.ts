/**
 * `kinetoscope perfetto TRACE`: opens the trace in Perfetto UI the way Perfetto's own
 * `open_trace_in_ui` script does — a tiny HTTP server on 127.0.0.1 that serves exactly that one
 * file, to https://ui.perfetto.dev only (CORS), and the URL that makes the UI fetch it. The trace
 * goes from this machine to the browser on this machine; nothing is uploaded anywhere.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { basename } from 'node:path';
import { createGunzip } from 'node:zlib';
import { KinetoscopeError } from '../../core/errors.js';
import { defineCommand } from '../command-spec.js';
import { printText, writeErr } from '../common.js';
import { openInput, type InputFile } from '../input-files.js';

export const PERFETTO_ORIGIN = 'https://ui.perfetto.dev';
/** The port Perfetto's open_trace_in_ui uses. */
export const PERFETTO_DEFAULT_PORT = 9001;

/** Node's longest timer: 2^31 − 1 ms. */
const MAX_TIMEOUT_S = Math.floor((2 ** 31 - 1) / 1000);

const NOTES = `
How it works: the UI at ${PERFETTO_ORIGIN} is told to load the trace from
http://127.0.0.1:PORT/TOKEN/NAME, TOKEN 128 random bits drawn for this run; this command
answers that one path (and CORS preflights) with the file's bytes and
Access-Control-Allow-Origin: ${PERFETTO_ORIGIN}. It answers only requests whose Host is
127.0.0.1:PORT or localhost:PORT (a page that rebinds its own DNS name to 127.0.0.1 sends its
own name: 403) and whose Origin is ${PERFETTO_ORIGIN} (the UI's fetch is cross-origin, so the
browser always sends it; a request without one, or from any other site: 403). Any other path
gets 404. Only 127.0.0.1 listens: other machines cannot reach it. A .gz trace is served as is
(Perfetto inflates gzip itself) unless --gunzip.
The server stops on Ctrl-C or after --timeout seconds (at most ${MAX_TIMEOUT_S} s, ~24.8 days:
Node's longest timer).
Perfetto reads the JSON in the browser: past roughly 2 GB, use Perfetto's trace_processor
--httpd (docs: "Visualising large traces") or kinetoscope report for an offline page.`;

interface PerfettoOptions {
  port: string;
  timeout?: string;
  printOnly?: true;
  gunzip?: true;
}

/** `token`: the random path segment that makes the URL unguessable (none in --print-only's example). */
export function perfettoUrl(port: number, name: string, token?: string): string {
  return `${PERFETTO_ORIGIN}/#!/?url=http://127.0.0.1:${port}/${token ? `${token}/` : ''}${encodeURIComponent(name)}`;
}

/** Whether a request may be answered: Host names this server (127.0.0.1 or localhost, this port), Origin is Perfetto UI's. */
export function allowedRequest(headers: { host?: string; origin?: string }, port: number): { ok: true } | { ok: false; why: string } {
  const host = headers.host?.toLowerCase();
  if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) return { ok: false, why: `Host ${JSON.stringify(headers.host ?? '')} is not 127.0.0.1:${port} or localhost:${port}` };
  if (headers.origin !== PERFETTO_ORIGIN) return { ok: false, why: headers.origin === undefined ? 'no Origin header' : `Origin ${JSON.stringify(headers.origin)}` };
  return { ok: true };
}

async function isGzip(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const b = Buffer.alloc(2);
    const { bytesRead } = await fh.read(b, 0, 2, 0);
    return bytesRead === 2 && b[0] === 0x1f && b[1] === 0x8b;
  } finally {
    await fh.close();
  }
}

function corsHeaders(): Record<string, string> {
  return {
    'Access-Control-Allow-Origin': PERFETTO_ORIGIN,
    // Chrome's Private Network Access: a public page reaching 127.0.0.1 asks first.
    'Access-Control-Allow-Private-Network': 'true',
    'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
    'Access-Control-Allow-Headers': '*',
    'Cache-Control': 'no-cache',
    Vary: 'Origin',
  };
}

export const spec = defineCommand({
  name: 'perfetto',
  summary: 'open the trace in Perfetto UI (served on 127.0.0.1 only)',
  description: 'open the trace in Perfetto UI: serve it on 127.0.0.1 to ui.perfetto.dev only, and print the URL that loads it',
  arguments: { trace: { description: 'trace file (.json or .json.gz)', path: true } },
  options: {
    port: { flags: '--port <n>', description: 'port on 127.0.0.1 (0 picks a free one)', default: String(PERFETTO_DEFAULT_PORT) },
    timeout: { flags: '--timeout <seconds>', description: 'stop serving after this many seconds (default: until Ctrl-C)' },
    gunzip: { flags: '--gunzip', description: 'serve a .gz trace decompressed (as NAME without .gz)' },
    printOnly: { flags: '--print-only', description: 'only print how to open the trace in Perfetto; serve nothing' },
  },
  definitions: NOTES,
  readsTraces: false,
  async run({ trace: path }, opts) {
    if (path === '-') throw new KinetoscopeError('BAD_ARGUMENT', 'perfetto serves a file: give its path, not - (standard input)');
    const port = Number(opts.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new KinetoscopeError('BAD_ARGUMENT', `--port expects 0–65535, got "${opts.port}"`);
    let timeoutS = opts.timeout === undefined ? undefined : Number(opts.timeout);
    if (timeoutS !== undefined && !(timeoutS > 0 && timeoutS !== Infinity)) throw new KinetoscopeError('BAD_ARGUMENT', `--timeout expects a positive number of seconds, got "${opts.timeout}"`);
    if (timeoutS !== undefined && timeoutS > MAX_TIMEOUT_S) timeoutS = MAX_TIMEOUT_S; // beyond it Node's timer fires at once
    // Opened once through the gate (input-files.ts) and served from what was opened: a file
    // swapped after the start is not served.
    const input = openInput(path);
    try {
      return await serve(path, input, port, timeoutS, opts);
    } finally {
      input.close();
    }
  },
});

/** Serves `input` (opened) until Ctrl-C, SIGTERM or --timeout; the exit status. */
async function serve(path: string, input: InputFile, port: number, timeoutS: number | undefined, opts: PerfettoOptions): Promise<number> {
  const size = input.size;
  const gunzip = opts.gunzip === true && (await isGzip(input.readPath));
  const name = gunzip ? basename(path).replace(/\.gz$/i, '') : basename(path);

  if (opts.printOnly) {
    printText(
      [
        `To open ${path} in Perfetto UI:`,
        `  - run: kinetoscope perfetto ${path}`,
        `    it serves the file on 127.0.0.1:${port || PERFETTO_DEFAULT_PORT} to ${PERFETTO_ORIGIN} only, and the UI loads it from`,
        `    ${perfettoUrl(port || PERFETTO_DEFAULT_PORT, name)}`,
        `  - or open ${PERFETTO_ORIGIN}, choose "Open trace file" and pick the file (.json.gz is fine).`,
        'The trace stays on this machine either way: the UI parses it in the browser.',
      ].join('\n'),
    );
    return 0;
  }

  const token = randomBytes(16).toString('hex');
  const wanted = `/${token}/${encodeURIComponent(name)}`;
  let bound = port;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const pathname = (req.url ?? '/').split('?')[0];
    // Only this server's own name (no DNS rebinding) and only Perfetto UI's page.
    // Two Host headers (no browser sends them) are not a Host: Node would read the first only.
    const hosts = req.rawHeaders.filter((_, i) => i % 2 === 0 && req.rawHeaders[i]!.toLowerCase() === 'host').length;
    const allowed = hosts > 1 ? ({ ok: false, why: `${hosts} Host headers` } as const) : allowedRequest(req.headers, bound);
    if (!allowed.ok) {
      res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
      res.end(`forbidden (${allowed.why}): this trace is served to ${PERFETTO_ORIGIN} on 127.0.0.1 only\n`);
      return;
    }
    if (req.method === 'OPTIONS') {
      res.writeHead(204, corsHeaders());
      res.end();
      return;
    }
    if ((req.method !== 'GET' && req.method !== 'HEAD') || pathname !== wanted) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', ...corsHeaders() });
      res.end('not found: this server serves one trace only\n');
      return;
    }
    const headers: Record<string, string> = { ...corsHeaders(), 'Content-Type': gunzip || !name.endsWith('.gz') ? 'application/json' : 'application/gzip' };
    if (!gunzip) headers['Content-Length'] = String(size);
    res.writeHead(200, headers);
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    const file = createReadStream(input.readPath);
    const body = gunzip ? file.pipe(createGunzip()) : file;
    body.on('error', (e: Error) => res.destroy(e));
    body.pipe(res);
    res.on('finish', () => writeErr(`served ${name} to ${req.headers.origin ?? 'a client without Origin'}\n`));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        e.code === 'EADDRINUSE'
          ? new KinetoscopeError('BAD_ARGUMENT', `port ${port} on 127.0.0.1 is in use (another kinetoscope perfetto?); give --port 0 for any free port`)
          : e,
      ),
    );
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  bound = typeof address === 'object' && address ? address.port : port;
  printText(
    [
      `Serving ${path} at http://127.0.0.1:${bound}${wanted} (to ${PERFETTO_ORIGIN} only).`,
      'Open this URL in a browser to load it in Perfetto UI:',
      '',
      `  ${perfettoUrl(bound, name, token)}`,
      '',
      timeoutS !== undefined ? `The server stops after ${timeoutS} s or on Ctrl-C.` : 'Ctrl-C stops the server.',
    ].join('\n'),
  );
  // Ctrl-C and SIGTERM stop it as they stop any command (128 + the signal: 130, 143); --timeout is the normal end (0).
  return await new Promise<number>((resolve) => {
    const stop = (status: number) => () => {
      clearTimeout(timer);
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      server.close(() => resolve(status));
      server.closeAllConnections();
    };
    const onInt = stop(130);
    const onTerm = stop(143);
    const timer = timeoutS !== undefined ? setTimeout(stop(0), timeoutS * 1000) : undefined;
    process.once('SIGINT', onInt);
    process.once('SIGTERM', onTerm);
  });
}
