/**
 * The growth step of the analyses' append-only typed lists: a typed array of twice the length,
 * the old elements first. Pure.
 */
export function doubled<T extends Float64Array | Int32Array | Uint8Array>(a: T): T {
  const b = new (a.constructor as new (n: number) => T)(2 * a.length);
  b.set(a);
  return b;
}
