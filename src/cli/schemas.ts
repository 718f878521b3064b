/** The JSON Schemas of the commands' --json documents, shipped in schema/ beside dist/. */
import { readFileSync } from 'node:fs';

// src/cli/ and dist/cli/ are both two folders below the package root
const SCHEMA_DIR = new URL('../../schema/', import.meta.url);

export function readSchemaText(command: string): string {
  return readFileSync(new URL(`${command}.schema.json`, SCHEMA_DIR), 'utf8');
}

export function readSchema(command: string): Record<string, unknown> {
  return JSON.parse(readSchemaText(command)) as Record<string, unknown>;
}
