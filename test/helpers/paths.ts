/**
 * The test folder, for tests that build paths to fixtures, the schemas or dist/ from it: tests
 * sit in folders mirroring src/, at different depths, and all name those paths from here.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const TEST_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
