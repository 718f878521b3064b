/**
 * How a `--json` document is declared: once, as a zod 4 schema in this folder, from which come
 * its TypeScript type (the `*Json()` mappers of the views return it), its JSON Schema
 * (`schema/COMMAND.schema.json`, written by `npm run generate` and checked by
 * test/repo/generated.test.ts) and the MCP server's schema resource.
 *
 * Objects are strict (a field not declared is an error, as `additionalProperties: false`), and
 * every field has a description: its own `.describe()`, or its name's in fields.ts.
 *
 * These modules load zod (tens of ms): a command never imports them at run time, only their types.
 */
import { z } from 'zod';
import { FIELD_DESCRIPTIONS } from './fields.js';

/**
 * A strict object whose fields without a description take their name's from fields.ts. A field
 * given as a getter (a recursive node: a tree's children) stays lazy.
 */
export function obj<S extends z.core.$ZodLooseShape>(shape: S): z.ZodObject<z.core.util.Writeable<S>, z.core.$strict> {
  const described: Record<string, unknown> = {};
  for (const [key, prop] of Object.entries(Object.getOwnPropertyDescriptors(shape))) {
    const describe = (s: z.ZodType): z.ZodType => (s.description === undefined && FIELD_DESCRIPTIONS[key] !== undefined ? s.describe(FIELD_DESCRIPTIONS[key]!) : s);
    if (prop.get) {
      const get = prop.get;
      let made: z.ZodType | undefined;
      Object.defineProperty(described, key, { enumerable: true, get: () => (made ??= describe(get.call(shape) as z.ZodType)) });
    } else described[key] = describe(prop.value as z.ZodType);
  }
  return z.strictObject(described as S);
}

/** A whole document: its title and what it holds (the schema file's `title` and `description`). */
export function jsonDocument<T extends z.ZodType>(title: string, description: string, body: T): T {
  return body.meta({ title, description });
}

/** A document as code may hand it over: every list and object read-only (a mapper's mutable arrays are one). */
export type Emitted<T> = T extends readonly (infer U)[] ? readonly Emitted<U>[] : T extends object ? { readonly [K in keyof T]: Emitted<T[K]> } : T;

/** What a view's mapper returns: the document less what the command adds around it (its layout version; `Added`: the traces' diagnostics, …). */
export type DocumentBody<D, Added extends PropertyKey = never> = D extends unknown ? Emitted<Omit<D, 'schemaVersion' | Added>> : never;
