#!/usr/bin/env node
// `npm run fuzz -- --cases N [--seed S] [--from K] [--mcp-calls M]`: a large fuzz sweep (test/fuzz/sweep.mjs) over
// the built CLI (run `npm run build` first). Exits 1 when any case breaks an invariant.
import { runSweep } from '../test/fuzz/sweep.mjs';
import { runMcpSweep } from '../test/fuzz/mcp-sweep.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const cases = arg('cases', 200);
const seed = arg('seed', 18);
const from = arg('from', 0);
const r = runSweep({ seed, cases, from, log: (s) => process.stderr.write(`${s}\n`) });
for (const f of r.failures) process.stdout.write(`${f}\n`);
process.stdout.write(`${r.cases} cases (seed ${seed}, from ${from}): ${r.failures.length} failures; command exits: ${JSON.stringify(r.statuses)}; cases in ${r.dir}\n`);
let failed = r.failures.length > 0;
// `--mcp-calls N`: also N seeded calls to the MCP server against a hostile root (test/fuzz/mcp-sweep.mjs).
const mcpCalls = arg('mcp-calls', 0);
if (mcpCalls > 0) {
  const m = await runMcpSweep({ seed, calls: mcpCalls, log: (s) => process.stderr.write(`${s}\n`) });
  for (const f of m.failures) process.stdout.write(`${f}\n`);
  process.stdout.write(`${m.calls} MCP calls (seed ${seed}): ${m.failures.length} failures; ${m.results} documents, ${m.errors} refusals\n`);
  failed ||= m.failures.length > 0;
}
process.exitCode = failed ? 1 : 0;
