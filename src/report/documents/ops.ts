/** The JSON document of `kinetoscope ops --json`: every field, its type and its meaning. */
import { z } from 'zod';
import { jsonDocument, obj } from './kit.js';
import { readerDiagnostics, recordedInputDims } from './shared.js';

const view = obj({
  name: z.string().describe("the op's name as the trace writes it"),
  calls: z.number().describe('instances of the op that launched no GPU work (none owned by it or by any op inside it), count'),
  ofCalls: z.number().describe('all instances of the op, count (more than calls when some instances launched GPU work)'),
  cpuTotalUs: z.number().describe('Σ durations of the instances that launched nothing (children included), µs'),
  selfCpuUs: z.number().describe("Σ (duration − durations of the host events directly inside) over the instances that launched nothing, µs; torch's hidden bookkeeping events are transparent"),
});

export const opsDocument = jsonDocument(
  'kinetoscope ops --json',
  "kinetoscope ops TRACE --json: the cpu_op instances that launched no GPU work, split into torch's metadata-only view ops and the rest, with their CPU cost; and the GEMM calls whose bias or activation rides in the kernel's epilogue, or is added by a separate kernel",
  obj({
    schemaVersion: z.number(),
    views: z.array(view).describe("torch's view ops (t, transpose, view, reshape, as_strided, _unsafe_view, ...) whose instances launched no GPU work, one row per name, by self CPU time, largest first; the first --limit n rows"),
    noGpuWork: z.array(view).describe('every other cpu_op whose instances launched no GPU work (allocations such as aten::empty, compiled-region frames, ops on CPU tensors), one row per name, by self CPU time, largest first; the first --limit n rows'),
    epilogues: z.array(obj({
      op: z.string().describe('the innermost GEMM op (aten::addmm, aten::mm, aten::_addmm_activation, ...)'),
      via: z.array(z.string()).describe('the GEMM-family ops around it, outermost first (aten::linear, aten::matmul); empty when none'),
      inputDims: recordedInputDims.describe("the GEMM op's Input Dims as recorded with record_shapes (one list of dimensions per input; [] for a non-tensor)"),
      shape: z.string().nullable().describe("the product's operands as text, '[M,K]×[K,N]' with ' + bias[N]' when there is one; null when the shapes could not be read"),
      kernel: z.string().nullable().describe("the GEMM kernel's name (the op's first kernel that decodes as a GEMM, else its first kernel); null when the op launched none"),
      carried: z.array(z.string()).describe("what rode in the GEMM kernel's epilogue ('bias', 'relu', 'gelu', ...): the op's asks the kernel name confirms (or that nothing else ran for), and the kernel name's flags; empty when nothing did"),
      opCarries: z.array(z.string()).describe("what the op asks of the GEMM beyond A×B: 'bias' (a bias operand, beta ≠ 0) and/or an activation ('relu', 'gelu'); empty when nothing"),
      kernelEpilogue: z.array(z.string()).describe("the epilogue flags the kernel's name states (nvjet ..._bias_..., CUTLASS ..._relu_...); empty when the name says none"),
      evidence: z.string().nullable().describe("what shows carried: 'op and kernel name', 'op' (the name is silent and no other kernel or add ran under the op) or 'kernel name'; null when nothing was carried"),
      separateAddKernel: z.boolean().describe("true when a separate add (under the GEMM-family op, or as the next op adding a bias-shaped operand) launched a kernel on the GEMM's output"),
      separateAdd: obj({
        op: z.string().describe("the add's op: aten::add, aten::add_, or the Inductor kernel's launch op (triton_poi_fused_add_0)"),
        inputDims: recordedInputDims.describe("the add op's Input Dims as recorded (one list of dimensions per input; [] for a non-tensor)"),
        kernels: z.array(z.string()).describe('the names of the kernels the add launched (first GEMM call of the row); empty when none'),
        meanUs: z.number().nullable().describe("Σ durations of the add's kernels per GEMM call that had them, mean, µs; null when the add launched no kernel"),
        fusedWith: z.array(z.unknown()).optional().describe('other ops fused into the same kernel as the add (an Inductor kernel that does more than the add); empty when the add ran alone'),
      }).nullable().describe("the separate add on the GEMM's output: aten::add(_) under the linear, or the next op adding a bias-shaped operand; null when none"),
      otherKernels: z.array(z.unknown()).describe('names of the other kernels the GEMM op launched (split-K reductions, bias copies, ...), one per kernel; empty when none'),
      calls: z.number().describe('GEMM calls in the row, count'),
      compiled: z.boolean().describe('true when the call ran inside a compiled graph (## Call CompiledFxGraph, CompiledFunction, Torch-Compiled Region)'),
      backward: z.boolean().optional().describe("whether the GEMM ran under autograd's backward (no epilogue advice is given there)"),
      statement: z.string().describe('the reading in one sentence (kernel names shortened)'),
    })).describe('GEMM calls whose op asks for a bias or activation, whose kernel name states an epilogue, or that are followed by a separate bias add; one row per (op, Input Dims, Input types, kernel, what was carried, add op)'),
    totals: obj({
      viewCalls: z.number().describe('view-op instances that launched nothing, count'),
      viewSelfCpuUs: z.number().describe('Σ self CPU time of those view instances, µs (self time, so nested views are not counted twice)'),
      noGpuWorkCalls: z.number().describe('other cpu_op instances that launched nothing, count'),
      noGpuWorkSelfCpuUs: z.number().describe('Σ self CPU time of those instances, µs'),
    }).describe('sums over all rows of views and noGpuWork (before --limit)'),
    notes: z.array(z.unknown()).describe('sentences that qualify the numbers (a trace with no GPU activity, a trace recorded without record_shapes)'),
    diagnostics: readerDiagnostics,
  }),
);

export type OpsDocument = z.infer<typeof opsDocument>;
