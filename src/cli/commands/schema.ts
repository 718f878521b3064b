/** `kinetoscope schema COMMAND`: the JSON Schema (draft 2020-12) of that command's `--json` document. */
import { Command } from 'commander';
import { KinetoscopeError } from '../../core/errors.js';
import { JSON_COMMANDS } from './index.js';
import { action, printText } from '../common.js';
import { readSchemaText } from '../schemas.js';

/** Files kinetoscope writes for itself to read back, with a schema of their own: ranks --partial's. */
const FILE_SCHEMAS = ['ranks-partial'] as const;

export function schemaCommand(): Command {
  const names: readonly string[] = [...JSON_COMMANDS, ...FILE_SCHEMAS];
  return new Command('schema')
    .description("the JSON Schema (draft 2020-12) of a command's --json document: every field, its type and unit")
    .argument('<command>', `one of: ${JSON_COMMANDS.join(', ')}; or ranks-partial (the file ranks --partial writes)`)
    .addHelpText(
      'after',
      `
Every --json document starts with "schemaVersion": the version of the layout. A field that
changes meaning or goes away raises it (CHANGELOG.md says what changed); a new field does not.
The schemas are also files: schema/COMMAND.schema.json in the package.`,
    )
    .action(
      action(async (name: string) => {
        if (!names.includes(name)) {
          throw new KinetoscopeError('BAD_ARGUMENT', `no JSON document for "${name}": schemas exist for ${names.join(', ')}`);
        }
        printText(readSchemaText(name));
      }),
    );
}
