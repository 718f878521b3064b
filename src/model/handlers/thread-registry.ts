/** Host threads: the one (pid, tid) → index registry handlers share. */
import type { ThreadInfo } from '../trace-model.js';

/*
 * Handlers are classes behind their factories: a method is one function for every trace, so what
 * V8 learns about it from the primer (primer.ts) holds for the next trace; closures made anew for
 * each trace would each start from nothing whenever V8 had not yet shared their feedback.
 */

/** (pid, tid) → thread index, shared by every handler that places events on host threads. */
export class ThreadRegistry {
  readonly threads: ThreadInfo[] = [];
  private readonly byKey = new Map<string, number>();
  /** Numeric (pid, tid), the common case, without building a key string per event. */
  private readonly byNumber = new Map<number, Map<number, number>>();

  indexOf(pid: number | string, tid: number | string): number {
    if (typeof pid === 'number' && typeof tid === 'number') {
      let m = this.byNumber.get(pid);
      if (m === undefined) this.byNumber.set(pid, (m = new Map()));
      let i = m.get(tid);
      if (i === undefined) {
        const key = `${pid}\u0000${tid}`;
        i = this.byKey.get(key) ?? this.add(pid, tid, key);
        m.set(tid, i);
      }
      return i;
    }
    const key = `${pid}\u0000${tid}`;
    return this.byKey.get(key) ?? this.add(pid, tid, key);
  }

  private add(pid: number | string, tid: number | string, key: string): number {
    const i = this.threads.length;
    this.threads.push({ pid, tid });
    this.byKey.set(key, i);
    return i;
  }
}

export function createThreadRegistry(): ThreadRegistry {
  return new ThreadRegistry();
}
