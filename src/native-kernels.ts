/**
 * The native addon's table kernels (native/table-kernels.h) as the model builder takes them
 * (model/table-kernels.ts), or undefined without the addon — or with one built before them.
 */
import { nativeAddon } from './ingest/native-loader.js';
import type { TableKernels } from './model/table-kernels.js';

/** The addon's functions: TableKernels' own, with the results written into a last argument. */
interface AddonKernels {
  mergeRuns: TableKernels['mergeRuns'];
  nest(...args: [...Parameters<TableKernels['nest']>, out: Float64Array]): void;
  firstRowWithId(...args: [...Parameters<TableKernels['firstRowWithId']>, out: Int32Array]): void;
}

export function nativeTableKernels(): TableKernels | undefined {
  const { mergeRuns, nest, firstRowWithId } = (nativeAddon() ?? {}) as Partial<AddonKernels>;
  if (mergeRuns === undefined || nest === undefined || firstRowWithId === undefined) return undefined;
  const out = new Float64Array(2);
  return {
    mergeRuns,
    nest(...args) {
      nest(...args, out);
      return { partial: out[0]!, latestEndNs: out[1]! };
    },
    firstRowWithId(kind, ids, want, named) {
      const rows = new Int32Array(named.length);
      firstRowWithId(kind, ids, want, named, rows);
      return rows;
    },
  };
}
