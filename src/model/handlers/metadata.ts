/** Metadata (`M`) records: process and thread names, labels and sort indices; Kineto's repeats counted once. */
import { argNumber } from '../../ingest/event-columns.js';
import { argsOf, idOf, type Batch, type HandlerContext } from './batch.js';
import type { ThreadRegistry } from './thread-registry.js';
import type { ProcessInfo } from '../trace-model.js';

export class MetadataHandler {
  private readonly processes = new Map<string, ProcessInfo>();
  private readonly seen = new Set<string>();
  private duplicates = 0;
  private count = 0;

  constructor(
    private readonly ctx: HandlerContext,
    private readonly threadReg: ThreadRegistry,
  ) {}

  /** Row i, an `M` record. */
  add(b: Batch, i: number): void {
    const name = b.labels[b.name[i]!]!;
    const pid = idOf(b, b.pid[i]!, b.pidLabel[i]!);
    const tid = idOf(b, b.tid[i]!, b.tidLabel[i]!);
    const args = argsOf(b, i);
    this.count++;
    const value = args?.['name'] ?? args?.['labels'] ?? args?.['sort_index'];
    const key = `${name}\u0000${pid}\u0000${tid}\u0000${JSON.stringify(value)}`;
    if (this.seen.has(key)) {
      this.duplicates++;
      return;
    }
    this.seen.add(key);
    const pkey = String(pid);
    switch (name) {
      case 'process_name':
      case 'process_labels':
      case 'process_sort_index': {
        let p = this.processes.get(pkey);
        if (!p) this.processes.set(pkey, (p = { pid }));
        if (name === 'process_name' && typeof value === 'string') p.name = value;
        if (name === 'process_labels' && typeof value === 'string') p.labels = value;
        if (name === 'process_sort_index') p.sortIndex = argNumber(value);
        break;
      }
      case 'thread_name':
      case 'thread_sort_index': {
        const t = this.threadReg.threads[this.threadReg.indexOf(pid, tid)]!;
        if (name === 'thread_name' && typeof value === 'string') t.name = value;
        else t.sortIndex = argNumber(value);
        break;
      }
    }
  }

  finalize(): { processes: ProcessInfo[]; count: number } {
    const duplicates = this.duplicates;
    if (duplicates > 0) {
      this.ctx.diagnostics.add({
        code: 'DUPLICATE_METADATA',
        severity: 'info',
        count: duplicates,
        message: `${duplicates} duplicate metadata (M) records were ignored (Kineto repeats thread and process names).`,
      });
    }
    return { processes: [...this.processes.values()], count: this.count };
  }
}

export function createMetadataHandler(ctx: HandlerContext, threadReg: ThreadRegistry): MetadataHandler {
  return new MetadataHandler(ctx, threadReg);
}
