/** Runs once before the suite: says once what is skipped when the peers' traces are absent. */
import { HAS_HTA, HTA_DIR } from './fixtures.js';

export default function setup(): void {
  if (!HAS_HTA) console.warn(`HTA peer traces not found at ${HTA_DIR}: the tests that read them are skipped.`);
}
