/** `kinetoscope mcp [--root DIR…]`: the analyses as Model Context Protocol tools over stdio, for coding agents. */
import { Command } from 'commander';
import { realpathSync, statSync } from 'node:fs';
import { KinetoscopeError } from '../../core/errors.js';
import { action } from '../common.js';
import { VERSION } from '../program.js';
import { CALL_TIMEOUT_S, serveMcp } from '../mcp-server.js';
import { mcpReadLimits, UNTRUSTED_NOTE } from '../mcp-tools.js';
import { JSON_COMMANDS } from './index.js';

export function mcpCommand(): Command {
  const limits = mcpReadLimits();
  return new Command('mcp')
    .description('serve the analyses to a coding agent as Model Context Protocol tools over stdio')
    .option('--root <dir...>', 'folders whose traces may be read (default: the working directory); repeatable')
    .option('--call-timeout <s>', `a tool call's time limit in seconds, from its arrival (default ${CALL_TIMEOUT_S})`)
    .addHelpText(
      'after',
      `
Tools: ${JSON_COMMANDS.join(', ')} — each takes the command's arguments and options
(the trace as "trace", diff's as "a" and "b") and answers with {document, page}: the same
document as \`kinetoscope COMMAND --json\` (schema: \`kinetoscope schema COMMAND\`), its lists cut
to "limit" rows (default 20) from "offset", strings over 160 characters cut unless
"fullNames". ${UNTRUSTED_NOTE}

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
  {"mcpServers": {"kinetoscope": {"command": "npx", "args": ["kinetoscope", "mcp", "--root", "/path/to/traces"]}}}`,
    )
    .action(
      action(async (opts: { root?: string[]; callTimeout?: string }) => {
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
      }),
    );
}
