/** Python frames (`python_function`): name, thread and span only. */
import { ChunkedTable } from '../columns.js';
import type { Batch } from './batch.js';

const PYTHON_COLUMNS = { name: Int32Array, thread: Int32Array, startNs: Float64Array, durNs: Float64Array } as const;

export class PythonFunctionsHandler {
  private readonly t = new ChunkedTable(PYTHON_COLUMNS);

  add(b: Batch, i: number, nameId: number, thread: number): void {
    const dur = b.durNs[i]!;
    const t = this.t;
    const r = t.row();
    const x = t.cur;
    x.name[r] = nameId;
    x.thread[r] = thread;
    x.startNs[r] = b.tsNs[i]! + b.shiftNs;
    x.durNs[r] = dur >= 0 ? dur : 0;
  }

  finalize(originNs: number) {
    const length = this.t.length;
    return { length, ...this.t.trim({ startNs: originNs }) };
  }
}

export function createPythonFunctionsHandler(): PythonFunctionsHandler {
  return new PythonFunctionsHandler();
}
