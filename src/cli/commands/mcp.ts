/** `kinetoscope mcp [--root DIR…]`: the analyses as Model Context Protocol tools over stdio, for coding agents. */
import { realpathSync, statSync } from 'node:fs';
import { KinetoscopeError } from '../../core/errors.js';
import { defineCommand } from '../command-spec.js';
import { VERSION } from '../program.js';
import { CALL_TIMEOUT_S, serveMcp } from '../mcp-server.js';
import { ANSWER_BYTES, mcpReadLimits, UNTRUSTED_NOTE } from '../mcp-tools.js';

function help(): string {
  const limits = mcpReadLimits();
  return `
Tools: every command with a --json document, of the same name (docs/agents.md lists them with
their inputs), and schema. A tool takes the command's arguments and options (the trace as
"trace", diff's as "a" and "b"; options in camelCase) and answers {document, page}: the same
document as \`kinetoscope COMMAND --json\`, its lists of rows cut to "limit" rows (default 20)
from "offset" and to fit "maxBytes" (default ${ANSWER_BYTES}), strings in rows over 160 characters
cut unless "fullNames"; totals, caveats, findings and diagnostics are never cut, and "page"
says what was. explain answers its Markdown, paged by section. Each document's schema is the
resource kinetoscope://schema/COMMAND, and a piece at a time the schema tool's answer. Errors
are one line, as on the command line: kinetoscope: CODE: what and where.
${UNTRUSTED_NOTE}

Confinement: every file a call opens lies inside the --root folders (a symbolic link is
followed only while it stays inside; the open file itself is checked); a path outside is
refused alike whether it exists or not; FIFOs, devices, sockets, loops and links to nothing are
refused; standard input is not a trace here. \`sql\` runs in DuckDB's sandbox (\`sql --help\`).

Bounds: calls run one at a time in a process of their own, which keeps the traces it read
(four at most) for the calls that follow. A call that runs past --call-timeout, or that the
client cancels, answers an error and that process is killed; one that crashes it answers an
error too; the next call starts a fresh one. Read limits default lower than the command line's,
from this machine's memory: --max-events ${limits.maxEvents} (half the memory at 160 B an event),
--max-input-bytes ${limits.maxInputBytes} (twice the memory); a call may raise them.

Register it with an agent (docs/agents.md):
  {"mcpServers": {"kinetoscope": {"command": "npx", "args": ["kinetoscope", "mcp", "--root", "/path/to/traces"]}}}`;
}

export const spec = defineCommand({
  name: 'mcp',
  summary: 'serve the analyses to a coding agent (Model Context Protocol)',
  description: 'serve the analyses to a coding agent as Model Context Protocol tools over stdio',
  arguments: {},
  options: {
    root: { flags: '--root <dir...>', description: 'folders whose traces may be read (default: the working directory); repeatable' },
    callTimeout: { flags: '--call-timeout <s>', description: `a tool call's time limit in seconds, from its arrival (default ${CALL_TIMEOUT_S})` },
  },
  definitions: help,
  readsTraces: false,
  async run(_args, opts) {
    const roots = (opts.root ?? [process.cwd()]).map((r) => {
      let st;
      try {
        st = statSync(r);
      } catch {
        st = undefined;
      }
      if (!st?.isDirectory()) throw new KinetoscopeError('BAD_ARGUMENT', `--root ${r} is not a folder`);
      return realpathSync(r);
    });
    let callTimeoutMs = CALL_TIMEOUT_S * 1000;
    if (opts.callTimeout !== undefined) {
      const s = Number(opts.callTimeout);
      if (!Number.isFinite(s) || s <= 0 || s > 86_400) throw new KinetoscopeError('BAD_ARGUMENT', `--call-timeout expects seconds from 0 (exclusive) to 86400, got "${opts.callTimeout}"`);
      callTimeoutMs = Math.max(1, Math.round(s * 1000));
    }
    await serveMcp({ roots, version: VERSION, callTimeoutMs });
  },
});
