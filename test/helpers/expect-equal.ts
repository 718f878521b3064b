/**
 * `expect(actual, message).toEqual(expected)`, decided first by Node's isDeepStrictEqual: on the
 * large values the reader and model tests compare (model fingerprints, whole read results) it is
 * many times faster than vitest's deep equality, and it is stricter — same prototypes, no
 * undefined property taken for a missing one, -0 apart from 0 — so what it finds equal toEqual
 * finds equal too. Where it finds a difference toEqual decides, and prints its diff.
 */
import { isDeepStrictEqual } from 'node:util';
import { expect } from 'vitest';

export function expectEqual(actual: unknown, expected: unknown, message?: string): void {
  if (isDeepStrictEqual(actual, expected)) return;
  expect(actual, message).toEqual(expected);
}
