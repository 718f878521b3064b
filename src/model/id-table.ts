/**
 * Ids (correlation, External id: finite numbers, integers in practice) numbered 0, 1, … in the
 * order they were first added, with the row each was first added with — a Map<number, number>
 * in typed arrays: open addressing, no object per entry and no boxed key. Filled while events
 * are added (hot code), so that linking in `finish` looks ids up instead of indexing every host
 * event then.
 *
 * The profiler counts its ids up, so an id's first position is the id itself (modulo the
 * table): ids that follow one another sit side by side, and adding or looking them up in order
 * stays in the cache. A taken position sends the id on by a step of its own (double hashing),
 * so ids that meet there — a stride of the table's size, a second range over the first — do not
 * pile up in runs.
 */
export class IdTable {
  /**
   * By number: the id and the row it was first added with. The arrays start empty and are made
   * at the first add (as they are replaced at each growth): a field that V8 has seen reassigned
   * once — in the model primer (primer.ts) — does not throw away code compiled meanwhile when a
   * table grows in a real trace.
   */
  private ids = new Float64Array(0);
  private rows = new Int32Array(0);
  /** Per hash position: the number of the id there, or −1 when free (at most half are used). */
  private slots = new Int32Array(1).fill(-1);
  private shift = 31;
  private mask = 0;
  size = 0;
  /** add() calls whose id was already there. */
  repeats = 0;

  /** The number of `id` (finite), or −1. */
  get(id: number): number {
    const x = key(id);
    const mask = this.mask;
    let h = x & mask;
    let s = this.slots[h]!;
    if (s < 0 || this.ids[s] === id) return s;
    const step = this.step(x);
    for (;;) {
      h = (h + step) & mask;
      s = this.slots[h]!;
      if (s < 0 || this.ids[s] === id) return s;
    }
  }

  /** The row the id numbered `n` was first added with. */
  rowOf(n: number): number {
    return this.rows[n]!;
  }

  /** Adds `id` (finite) with `row`, unless it is there already (then counted in `repeats`). */
  add(id: number, row: number): void {
    if (this.size === this.ids.length) this.grow();
    const x = key(id);
    const mask = this.mask;
    let h = x & mask;
    let step = 0;
    for (;;) {
      const s = this.slots[h]!;
      if (s < 0) break;
      if (this.ids[s] === id) {
        this.repeats++;
        return;
      }
      if (step === 0) step = this.step(x);
      h = (h + step) & mask;
    }
    const n = this.size++;
    this.slots[h] = n;
    this.ids[n] = id;
    this.rows[n] = row;
  }

  /** Room for twice as many ids (512 at first), rehashed into twice as many slots. */
  private grow(): void {
    const n = this.size;
    const room = Math.max(512, n * 2);
    const ids = new Float64Array(room);
    ids.set(this.ids);
    this.ids = ids;
    const rows = new Int32Array(room);
    rows.set(this.rows);
    this.rows = rows;
    this.slots = new Int32Array(room * 2).fill(-1);
    this.shift = Math.clz32(room * 2) + 1;
    this.mask = room * 2 - 1;
    const slots = this.slots;
    const mask = this.mask;
    for (let s = 0; s < n; s++) {
      const x = key(ids[s]!);
      let h = x & mask;
      if (slots[h]! >= 0) {
        const step = this.step(x);
        do h = (h + step) & mask;
        while (slots[h]! >= 0);
      }
      slots[h] = s;
    }
  }

  /** An odd step (the table's size is a power of two: every position is reached). */
  private step(x: number): number {
    return (Math.imul(x, 0x9e3779b1) >>> this.shift) | 1;
  }
}

/** The low 32 bits of the id's integer part (a fraction only meets its integer), the high ones mixed in. */
function key(id: number): number {
  return (id | 0) ^ Math.imul((id / 4294967296) | 0, 0x27d4eb2d);
}
