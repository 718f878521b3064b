/**
 * Interned strings: bulk tables store an index into one string table instead of a
 * string per event, so a million launches of the same kernel cost one name.
 */
export class StringTable {
  private readonly ids = new Map<string, number>();
  private readonly values: string[] = [];

  intern(s: string): number {
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(s);
      this.ids.set(s, id);
    }
    return id;
  }

  /** The id of `s` if it was interned, else -1 (never interns). */
  find(s: string): number {
    return this.ids.get(s) ?? -1;
  }

  get(id: number): string {
    const s = this.values[id];
    if (s === undefined) throw new Error(`string id ${id} out of range`);
    return s;
  }

  get size(): number {
    return this.values.length;
  }
}
