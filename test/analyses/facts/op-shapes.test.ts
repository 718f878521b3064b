/**
 * facts/op-shapes.ts against torch's own shape propagation: every op signature of the captures,
 * run on meta tensors on the GPU machine (test/fixtures/shapes/op-output-shapes.json.gz, made by
 * workloads/shape_oracle.py; its README says how each call was rebuilt). For every signature a
 * rule covers, each return the rule derives must equal torch's: the shape, and the dtype where the
 * rule names one; an undefined tensor where the rule says none. The coverage (signatures whose
 * outputs a rule derives, of those torch resolved, by op) is printed.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { deriveOpOutputs, type DerivedOutput, type DerivedTensor } from '../../../src/analyses/facts/op-shapes.js';
import { TEST_DIR } from '../../helpers/paths.js';

const SHAPES = join(TEST_DIR, 'fixtures/shapes');
/**
 * Every oracle: `op-output-shapes.json.gz` (the GPU machine's torch) and the ones made with other
 * torch versions (`op-output-shapes.torch-1.13.json.gz`: Debian's python3-torch, CPU, meta tensors).
 */
const ORACLES = existsSync(SHAPES) ? readdirSync(SHAPES).filter((f) => /^op-output-shapes.*\.json\.gz$/.test(f)).sort() : [];

/**
 * Where an older torch's meta functions disagree with the kernels that ran (and with newer torch):
 * before 2.0, torch._decomp's native_batch_norm_backward cast the weight and bias gradients to the
 * input's dtype; since, to the weight's — what cuDNN's and ATen's CUDA kernels return. The rule
 * gives the weight's; those two dtypes are not compared against a torch below 2.
 */
const VERSION_DIFFERENCES: { below: number; op: RegExp; outputs: readonly number[]; what: 'dtype' }[] = [
  { below: 2, op: /^aten::(cudnn|native)_batch_norm_backward$/, outputs: [1, 2], what: 'dtype' },
];

/** torch's dtype names for the trace's `Input type` spellings (this test's own table). */
const TORCH_DTYPE: Record<string, string> = {
  float: 'float32',
  double: 'float64',
  'c10::Half': 'float16',
  'c10::BFloat16': 'bfloat16',
  'long int': 'int64',
  int: 'int32',
  'short int': 'int16',
  'signed char': 'int8',
  'unsigned char': 'uint8',
  bool: 'bool',
  'c10::complex<float>': 'complex64',
  'c10::complex<double>': 'complex128',
  'c10::Float8_e4m3fn': 'float8_e4m3fn',
  'c10::Float8_e5m2': 'float8_e5m2',
};

interface OracleTensor {
  shape?: number[] | null;
  dtype?: string | null;
  list?: OracleOutput[];
  none?: boolean;
  scalar?: string;
}
type OracleOutput = OracleTensor;
interface Signature {
  name: string;
  input_dims: unknown;
  input_type: unknown;
  concrete_inputs: unknown;
  count: number;
  status: 'resolved' | 'unresolved';
  overload?: string;
  outputs?: OracleOutput[];
  reason?: string;
}

/** Why a derived return disagrees with torch's, or undefined when it agrees. */
function disagreement(derived: DerivedOutput, torch: OracleOutput | undefined, skipDtype = false): string | undefined {
  if (derived === undefined) return undefined;
  if (torch === undefined) return 'torch has no such return';
  if (derived === null) return torch.none ? undefined : `derived none, torch ${JSON.stringify(torch)}`;
  if ('list' in derived) {
    if (!torch.list) return `derived a list, torch ${JSON.stringify(torch)}`;
    if (torch.list.length !== derived.list.length) return `list of ${derived.list.length}, torch ${torch.list.length}`;
    for (let i = 0; i < derived.list.length; i++) {
      const d = disagreement(derived.list[i]!, torch.list[i]);
      if (d) return `[${i}] ${d}`;
    }
    return undefined;
  }
  const t = derived as DerivedTensor;
  if (torch.shape === undefined) return `derived a tensor, torch ${JSON.stringify(torch)}`;
  if (torch.shape !== null && JSON.stringify(torch.shape) !== JSON.stringify(t.dims)) return `shape ${JSON.stringify(t.dims)}, torch ${JSON.stringify(torch.shape)}`;
  if (t.dtype !== undefined && torch.dtype != null && !skipDtype) {
    const mine = TORCH_DTYPE[t.dtype] ?? t.dtype;
    if (mine !== torch.dtype) return `dtype ${mine}, torch ${torch.dtype}`;
  }
  return undefined;
}

describe.skipIf(ORACLES.length === 0)('op output shapes agree with torch (meta tensors)', () => {
  for (const file of ORACLES) {
    it(`${file}: every derived return equals torch’s, for every signature a rule covers`, () => {
      const doc = JSON.parse(gunzipSync(readFileSync(join(SHAPES, file))).toString()) as { torch: string; signatures: Signature[] };
      const major = Number(doc.torch.split('.')[0]);
      const wrong: string[] = [];
      const byOp = new Map<string, { resolved: number; covered: number; calls: number; coveredCalls: number }>();
      let derivedUnresolved = 0;
      for (const s of doc.signatures) {
        if (!s.name.startsWith('aten::')) continue;
        const args = { 'Input Dims': s.input_dims, 'Input type': s.input_type, 'Concrete Inputs': s.concrete_inputs } as never;
        const outs = deriveOpOutputs(s.name, args);
        if (s.status !== 'resolved') {
          if (outs) derivedUnresolved++;
          continue;
        }
        const row = byOp.get(s.name) ?? { resolved: 0, covered: 0, calls: 0, coveredCalls: 0 };
        row.resolved++;
        row.calls += s.count;
        byOp.set(s.name, row);
        if (!outs || outs.every((o) => o === undefined)) continue;
        row.covered++;
        row.coveredCalls += s.count;
        outs.forEach((o, i) => {
          const skipDtype = VERSION_DIFFERENCES.some((v) => major < v.below && v.op.test(s.name) && v.outputs.includes(i));
          const d = disagreement(o, s.outputs![i], skipDtype);
          if (d) wrong.push(`${s.name}.${s.overload} ${JSON.stringify(s.input_dims)} ${JSON.stringify(s.concrete_inputs)} → [${i}] ${d}`);
        });
      }
      const rows = [...byOp].sort((a, b) => b[1].resolved - a[1].resolved || (a[0] < b[0] ? -1 : 1));
      const resolved = rows.reduce((n, [, r]) => n + r.resolved, 0);
      const covered = rows.reduce((n, [, r]) => n + r.covered, 0);
      const calls = rows.reduce((n, [, r]) => n + r.calls, 0);
      const coveredCalls = rows.reduce((n, [, r]) => n + r.coveredCalls, 0);
      const uncovered = rows.filter(([, r]) => r.covered < r.resolved).map(([n, r]) => `${n} ${r.covered}/${r.resolved}`);
      console.log(
        `op-shapes coverage against ${file} (torch ${doc.torch}): ${covered} of ${resolved} resolved aten signatures (${((100 * covered) / resolved).toFixed(1)}%), ` +
          `${coveredCalls} of ${calls} calls; ${rows.filter(([, r]) => r.covered > 0).length} of ${rows.length} ops have a rule; ` +
          `${derivedUnresolved} signatures torch could not run have derived outputs (not checked).\n` +
          `Not covered (derived/resolved): ${uncovered.join(', ') || 'none'}`,
      );
      expect(wrong, wrong.slice(0, 40).join('\n')).toEqual([]);
      expect(covered / resolved).toBeGreaterThan(0.95);
    });
  }
});

describe('op output rules, by hand', () => {
  it('the cases issue 37 names: a reduction is not its input, views and in-place ops', () => {
    // aten::sum of a [64,128,32,32] bias gradient over [0,2,3] is [128] (keepdim False)
    const sum = deriveOpOutputs('aten::sum', { 'Input Dims': [[64, 128, 32, 32], [], [], []], 'Input type': ['c10::Half', 'ScalarList', 'Scalar', ''], 'Concrete Inputs': ['', '[0, 2, 3]', 'False', ''] });
    expect(sum).toEqual([{ dims: [128], dtype: 'c10::Half' }]);
    // an op without a rule has an unknown output, not its input's shape
    expect(deriveOpOutputs('aten::nonzero', { 'Input Dims': [[8, 8]], 'Input type': ['float'], 'Concrete Inputs': [''] })).toBeUndefined();
    expect(deriveOpOutputs('myns::op', { 'Input Dims': [[8, 8]], 'Input type': ['float'], 'Concrete Inputs': [''] })).toBeUndefined();
    // in-place: the self argument
    expect(deriveOpOutputs('aten::add_', { 'Input Dims': [[128], [128], []], 'Input type': ['float', 'float', 'Scalar'], 'Concrete Inputs': ['', '', '1'] })).toEqual([{ dims: [128], dtype: 'float' }]);
  });
});
