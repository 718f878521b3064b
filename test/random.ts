/** A seeded pseudo-random source for tests that compare fast code with a plain oracle on random tables: the same tables on every run. */

/** Numbers in [0, 1) from a linear congruential generator (glibc's constants). */
export function lcg(seed: number): () => number {
  let x = seed;
  return () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
}
