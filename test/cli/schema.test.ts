/**
 * Every command's --json document, on every H200 capture (and the pairs and expectation files
 * the other tests use), validates against its schema in schema/ with a maintained validator
 * (Ajv, draft 2020-12), and every field of every schema is described.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { jsonCommands } from '../../src/cli/commands/index.js';
import { JSON_SCHEMA_VERSION } from '../../src/cli/common.js';
import { runCommand } from '../../src/cli/run-command.js';
// @ts-expect-error: a plain script of the repo's, without types
import { commandRuns } from '../../scripts/command-runs.mjs';
import { openForTest, runCli } from '../helpers/cli.js';
import { TEST_DIR } from '../helpers/paths.js';

const ROOT = join(TEST_DIR, '..');
const specs = await jsonCommands();
const jsonCommandNames = specs.map((s) => s.name);
const runs = commandRuns(specs) as Record<string, string[][]>;
const schemaOf = (c: string) => JSON.parse(readFileSync(join(ROOT, 'schema', `${c}.schema.json`), 'utf8')) as Record<string, unknown>;

function undocumented(s: unknown, path: string, out: string[]): string[] {
  if (!s || typeof s !== 'object') return out;
  const o = s as Record<string, unknown>;
  for (const [k, v] of Object.entries((o['properties'] as Record<string, unknown>) ?? {})) {
    if (!(v as Record<string, unknown>)['description']) out.push(`${path}/${k}`);
    undocumented(v, `${path}/${k}`, out);
  }
  if (o['items']) undocumented(o['items'], `${path}/*`, out);
  if (o['additionalProperties'] && typeof o['additionalProperties'] === 'object') undocumented(o['additionalProperties'], `${path}/{}`, out);
  for (const [k, v] of Object.entries((o['$defs'] as Record<string, unknown>) ?? {})) undocumented(v, `#/$defs/${k}`, out);
  return out;
}

describe('JSON schemas', () => {
  const ajv = new Ajv2020({ allErrors: true });
  ajv.addKeyword('x-maps');
  ajv.addKeyword('x-opaque');

  it('cover exactly the JSON commands', () => {
    expect(Object.keys(runs).sort()).toEqual([...jsonCommandNames].sort());
  });

  for (const command of jsonCommandNames) {
    it(`${command}: every document validates, every field is described`, async () => {
      const schema = schemaOf(command);
      expect(schema['$schema']).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(undocumented(schema, '', [])).toEqual([]);
      const validate = ajv.compile(schema);
      const list = runs[command]!;
      expect(list.length).toBeGreaterThan(0);
      for (const argv of list) {
        const run = await runCommand(command, [...argv, '--json'], openForTest);
        expect(run.stderr, argv.join(' ')).toBe('');
        expect(run.document?.['schemaVersion']).toBe(JSON_SCHEMA_VERSION);
        const ok = validate(run.document);
        expect(ok ? [] : ajv.errorsText(validate.errors, { separator: '\n' }).split('\n').slice(0, 5), `${command} ${argv.map((a) => a.split('/').pop()).join(' ')}`).toEqual([]);
      }
    });
  }

  describe('kinetoscope schema COMMAND', () => {
    it('prints the schema file; an unknown command is bad input', async () => {
      const ok = await runCli(['schema', 'steps']);
      expect(ok.status).toBe(0);
      expect(JSON.parse(ok.stdout)).toEqual(schemaOf('steps'));
      const bad = await runCli(['schema', 'crop']);
      expect(bad.status).toBe(2);
      expect(bad.stderr).toMatch(/^kinetoscope: BAD_ARGUMENT: no JSON document for "crop"/);
    });
  });
});
