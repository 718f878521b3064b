/**
 * How much of a large sweep (mutations, fuzz cases, tiny-chunk re-reads) a test run does: a
 * size CI affords on a busy two-core machine in `npm test`, all of it under `npm run test:full`
 * (KINETOSCOPE_FULL=1). Work is bounded by size, never by a wall-clock limit.
 */
export const FULL_SWEEPS = process.env['KINETOSCOPE_FULL'] === '1';

/** `ci` cases in `npm test`, `full` under `npm run test:full`. */
export function sweepSize(ci: number, full: number): number {
  return FULL_SWEEPS ? full : ci;
}
