/** `kinetoscope schema COMMAND`: the JSON Schema (draft 2020-12) of that command's `--json` document. */
import { KinetoscopeError } from '../../core/errors.js';
import { defineCommand } from '../command-spec.js';
import { printText } from '../common.js';
import { readSchemaText } from '../schemas.js';
import { jsonCommands } from './index.js';

const HELP = `
Every --json document starts with "schemaVersion": the version of the layout. A field that
changes meaning or goes away raises it (CHANGELOG.md says what changed); a new field does not.
The schemas are also files: schema/COMMAND.schema.json in the package.`;

/** The names `schema` answers: every command's document, and the files a command writes for itself to read back. */
export async function schemaNames(): Promise<string[]> {
  const specs = await jsonCommands();
  return [...specs.map((s) => s.name), ...specs.flatMap((s) => Object.keys(s.files ?? {}))];
}

export const spec = defineCommand({
  name: 'schema',
  summary: "the JSON Schema of a command's --json document",
  description: "the JSON Schema (draft 2020-12) of a command's --json document: every field, its type and unit",
  arguments: { command: { description: 'a command that prints a --json document (summary, steps, explain, …); or ranks-partial (the file ranks --partial writes)' } },
  options: {},
  definitions: HELP,
  readsTraces: false,
  async run({ command }) {
    const names = await schemaNames();
    if (!names.includes(command)) throw new KinetoscopeError('BAD_ARGUMENT', `no JSON document for "${command}": schemas exist for ${names.join(', ')}`);
    printText(readSchemaText(command));
  },
});
