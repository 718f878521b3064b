/**
 * The keys of the GEMM tables' rows (gemm.ts, epilogues.ts): a row is one combination of texts —
 * op, Input Dims, Input types, kernel names … Each text is numbered at its first sight and a
 * call's key is the numbers of its texts: a short string per call, rather than the texts joined
 * (a new string of hundreds of characters per call, hashed whole). The texts themselves are
 * shared by the calls (the string table's names, one Input Dims text per args object), so
 * numbering one is a lookup of a hash already computed.
 */
export class RowKeys {
  private readonly ids = new Map<string, number>();

  /** The key of a row of these texts: equal keys for equal texts, in the same order. */
  of(...texts: string[]): string {
    let key = '';
    for (let k = 0; k < texts.length; k++) key += `${k ? ' ' : ''}${this.idOf(texts[k]!)}`;
    return key;
  }

  private idOf(text: string): number {
    let id = this.ids.get(text);
    if (id === undefined) this.ids.set(text, (id = this.ids.size));
    return id;
  }
}
