/**
 * What a trace holds, told from the model's tables: torch's ops (a PyTorch profiler trace), the
 * CUDA activity alone (a profiler run with `activities=[CUDA]`, or a CUPTI-only capture), or no
 * event of a category the PyTorch profiler writes at all — a Chrome trace from another tool (a
 * browser's, a JAX/TF trace, a hand-made one), whose events the reader counts and leaves out
 * (model `counts.ignored`). Readings that find nothing say which, instead of assuming the middle one.
 */
import { HostKind, type TraceModel } from '../../model/trace-model.js';

export type RecordedActivity =
  /** At least one `cpu_op` or `user_annotation`. */
  | 'torch'
  /** No op and no annotation, but GPU activities or CUDA runtime/driver calls. */
  | 'cuda-alone'
  /** None of the above: nothing the PyTorch profiler writes. */
  | 'not-kineto';

export function recordedActivity(m: TraceModel): RecordedActivity {
  const kind = m.host.kind;
  if (kind.indexOf(HostKind.Op) >= 0 || kind.indexOf(HostKind.Annotation) >= 0) return 'torch';
  if (m.gpu.length > 0 || kind.indexOf(HostKind.Runtime) >= 0 || kind.indexOf(HostKind.Driver) >= 0) return 'cuda-alone';
  return 'not-kineto';
}
