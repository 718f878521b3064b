/**
 * Ids (correlation, External id: finite numbers, integers in practice) numbered 0, 1, … in the
 * order they were first added, with the row each was first added with — a Map<number, number>
 * in typed arrays: open addressing, no object per entry and no boxed key. Filled while events
 * are added (hot code), so that linking in `finish` looks ids up instead of indexing every host
 * event then.
 */
export class IdTable {
  /** By number: the id and the row it was first added with. */
  private ids = new Float64Array(512);
  private rows = new Int32Array(512);
  /** Per hash position: the number of the id there, or −1 when free (at most half are used). */
  private slots = new Int32Array(1024).fill(-1);
  private shift = 32 - 10;
  private mask = 1023;
  size = 0;
  /** add() calls whose id was already there. */
  repeats = 0;

  /** The number of `id` (finite), or −1. */
  get(id: number): number {
    for (let h = this.hash(id); ; h = (h + 1) & this.mask) {
      const s = this.slots[h]!;
      if (s < 0 || this.ids[s] === id) return s;
    }
  }

  /** The row the id numbered `n` was first added with. */
  rowOf(n: number): number {
    return this.rows[n]!;
  }

  /** Adds `id` (finite) with `row`, unless it is there already (then counted in `repeats`). */
  add(id: number, row: number): void {
    for (let h = this.hash(id); ; h = (h + 1) & this.mask) {
      const s = this.slots[h]!;
      if (s >= 0) {
        if (this.ids[s] !== id) continue;
        this.repeats++;
        return;
      }
      const n = this.size++;
      this.slots[h] = n;
      this.ids[n] = id;
      this.rows[n] = row;
      if (this.size === this.ids.length) this.grow();
      return;
    }
  }

  private grow(): void {
    const n = this.size;
    const ids = new Float64Array(n * 2);
    ids.set(this.ids);
    this.ids = ids;
    const rows = new Int32Array(n * 2);
    rows.set(this.rows);
    this.rows = rows;
    this.slots = new Int32Array(n * 4).fill(-1);
    this.shift--;
    this.mask = n * 4 - 1;
    const slots = this.slots;
    const mask = this.mask;
    for (let s = 0; s < n; s++) {
      let h = this.hash(ids[s]!);
      while (slots[h]! >= 0) h = (h + 1) & mask;
      slots[h] = s;
    }
  }

  private hash(id: number): number {
    // Low and high 32 bits of the integer part (a fraction only collides); Fibonacci hashing
    // (ids that follow one another land far apart: linear probing keeps no long clusters).
    const lo = id | 0;
    const hi = (id / 4294967296) | 0;
    return Math.imul(lo ^ Math.imul(hi, 0x27d4eb2d), 0x9e3779b1) >>> this.shift;
  }
}
