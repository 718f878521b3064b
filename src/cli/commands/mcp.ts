/** `kinetoscope mcp [--root DIR…]`: the analyses as Model Context Protocol tools over stdio, for coding agents. */
import { Command } from 'commander';
import { existsSync, statSync } from 'node:fs';
import { KinetoscopeError } from '../../core/errors.js';
import { action } from '../common.js';
import { VERSION } from '../program.js';
import { serveMcp } from '../mcp-server.js';
import { JSON_COMMANDS } from './index.js';

export function mcpCommand(): Command {
  return new Command('mcp')
    .description('serve the analyses to a coding agent as Model Context Protocol tools over stdio')
    .option('--root <dir...>', 'folders whose traces may be read (default: the working directory); repeatable')
    .addHelpText(
      'after',
      `
Tools: ${JSON_COMMANDS.join(', ')} — each takes the command's arguments and options
(the trace as "trace", diff's as "a" and "b") and answers with {document, page}: the same
document as \`kinetoscope COMMAND --json\` (schema: \`kinetoscope schema COMMAND\`), its lists cut
to "limit" rows (default 20) from "offset", strings over 160 characters cut unless
"fullNames". A trace is read once and kept for the calls that follow (four at most). A path
outside the --root folders is refused; standard input is not a trace here.

Register it with an agent (docs/agents.md):
  {"mcpServers": {"kinetoscope": {"command": "npx", "args": ["kinetoscope", "mcp", "--root", "/path/to/traces"]}}}`,
    )
    .action(
      action(async (opts: { root?: string[] }) => {
        const roots = opts.root ?? [process.cwd()];
        for (const r of roots) {
          if (!existsSync(r) || !statSync(r).isDirectory()) throw new KinetoscopeError('BAD_ARGUMENT', `--root ${r} is not a folder`);
        }
        await serveMcp({ roots, version: VERSION });
      }),
    );
}
