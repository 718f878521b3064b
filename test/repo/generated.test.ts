/**
 * The files scripts/generate.mjs writes from the command specs — schema/*.schema.json (from the
 * documents' zod declarations), src/index.ts's block of exports, docs/agents.md's tool list (from
 * the MCP server's own list) — are what the specs give today: a hand edit, or a spec changed
 * without `npm run generate`, fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import * as commands from '../../src/cli/commands/index.js';
import * as mcpTools from '../../src/cli/mcp-tools.js';
// @ts-expect-error: a plain script of the repo's, without types
import { generatedFiles } from '../../scripts/generate.mjs';
import { TEST_DIR } from '../helpers/paths.js';

const ROOT = join(TEST_DIR, '..');
const files = (await generatedFiles({ commands, mcpTools, z })) as Map<string, string>;

describe('generated files are up to date (npm run generate)', () => {
  for (const [path, text] of files) {
    it(path, () => {
      expect(readFileSync(join(ROOT, path), 'utf8') === text, `${path} differs from what the specs give: run npm run generate`).toBe(true);
    });
  }

  it('schema/ holds no schema the specs do not declare', () => {
    const declared = [...files.keys()].filter((p) => p.startsWith('schema/')).map((p) => p.slice('schema/'.length));
    const present = readdirSync(join(ROOT, 'schema')).filter((f) => f.endsWith('.schema.json'));
    expect(present.sort()).toEqual(declared.sort());
  });

  it("docs/agents.md lists every tool the server lists", async () => {
    const tools = mcpTools.toolList(await mcpTools.describeTools());
    const doc = readFileSync(join(ROOT, 'docs/agents.md'), 'utf8');
    for (const t of tools) expect(doc, t.name).toContain(`### \`${t.name}\``);
  });
});
