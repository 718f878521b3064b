/**
 * What an ATen op returns, derived by rule from what the trace records of its inputs (`Input
 * Dims`, `Input type`, `Concrete Inputs`): Kineto writes the inputs of every `cpu_op` and never
 * its outputs, so a link from one op's output to another op's input needs the output worked out.
 *
 * One rule per op family (the files under `op-shapes/`): pointwise ops with broadcasting and
 * type promotion, reductions with their dims and keepdim, views and reshapes, matrix products,
 * convolutions and pooling, normalizations and softmax, attention, indexing and concatenation,
 * factories, casts, foreach ops and losses. An in-place op (`add_`, `copy_`, `fill_`) returns its
 * self argument. An op with no rule, or a call its rule does not understand, has an **unknown**
 * output — never its input's shape: `sum` over [0,2,3] of a [64,128,32,32] tensor is [128].
 *
 * Checked against torch's own shape propagation (meta tensors) for every op signature in the
 * captures: test/analyses/facts/op-shapes.test.ts with test/fixtures/shapes/op-output-shapes.json.gz.
 *
 * Ignores: the overload the trace does not name where the recorded arguments tell it (they do for
 * every rule here), strides and memory formats, symbolic sizes, and ops whose output depends on
 * tensor data (nonzero, masked_select, unique, item).
 */
import type { JsonObject } from '../../core/json.js';
import { ATTENTION_RULES } from './op-shapes/attention.js';
import { CONVOLUTION_RULES } from './op-shapes/convolution.js';
import { CREATION_RULES, FOREACH_RULE } from './op-shapes/creation.js';
import { INDEXING_RULES } from './op-shapes/indexing.js';
import { MATMUL_RULES } from './op-shapes/matmul.js';
import { NORMALIZATION_RULES } from './op-shapes/normalization.js';
import { POINTWISE_RULES } from './op-shapes/pointwise.js';
import { RecordedCall, type DerivedTensor } from './op-shapes/recorded-call.js';
import { maxMinRules, REDUCTION_RULES } from './op-shapes/reductions.js';
import type { DerivedOutput, OpRule } from './op-shapes/shape-math.js';
import { VIEW_RULES } from './op-shapes/views.js';

export type { DerivedOutput, DerivedTensor };

/** Every rule by op name without its namespace (`add`, `native_layer_norm`). */
const RULES: ReadonlyMap<string, OpRule> = new Map(
  Object.entries({
    ...POINTWISE_RULES,
    ...REDUCTION_RULES,
    ...maxMinRules(POINTWISE_RULES['maximum']!),
    ...VIEW_RULES,
    ...MATMUL_RULES,
    ...CONVOLUTION_RULES,
    ...NORMALIZATION_RULES,
    ...ATTENTION_RULES,
    ...INDEXING_RULES,
    ...CREATION_RULES,
  }),
);

/** In-place ops whose self changes shape (or that return nothing): their own rules. */
const IN_PLACE_RULES: ReadonlyMap<string, OpRule> = new Map<string, OpRule>([
  ['resize_', (c) => {
    const self = c.tensor(0);
    const size = c.ints(1);
    return self && size ? [{ dims: size, dtype: self.dtype! }] : undefined;
  }],
  ['resize_as_', (c) => {
    const self = c.tensor(0);
    const other = c.tensor(1);
    return self && other ? [{ dims: other.dims, dtype: self.dtype! }] : undefined;
  }],
  ['as_strided_', VIEW_RULES['as_strided']!],
  ['transpose_', VIEW_RULES['transpose']!],
  ['t_', VIEW_RULES['t']!],
  ['unsqueeze_', VIEW_RULES['unsqueeze']!],
  ['squeeze_', VIEW_RULES['squeeze']!],
  // set_ has overloads that take a storage, a tensor or nothing: the trace does not tell them apart well enough.
  ['set_', () => undefined],
]);

/** Returns nothing (`void` in the schema): the foreach in-place ops, the fused optimizers, AMP's unscale. */
const RETURNS_NOTHING = /^(_foreach_\w+_|_fused_\w+_|_amp_foreach_non_finite_check_and_unscale_)$/;

/** The rule for an op name, with or without its `aten::` namespace; undefined when there is none. */
function ruleOf(name: string): OpRule | undefined {
  const colon = name.indexOf('::');
  if (colon >= 0 && name.slice(0, colon) !== 'aten') return undefined;
  const base = colon >= 0 ? name.slice(colon + 2) : name;
  const own = IN_PLACE_RULES.get(base) ?? RULES.get(base);
  if (own) return own;
  if (RETURNS_NOTHING.test(base)) return () => [];
  if (base.startsWith('_foreach_')) return FOREACH_RULE;
  // Any other in-place op writes its self argument and returns it.
  if (base.endsWith('_') && !base.endsWith('__')) return (c) => (c.tensor(0) ? [c.tensor(0)!] : undefined);
  return undefined;
}

/** Whether kinetoscope has a rule for the op (its output may still be unknown for a call the rule does not understand). */
export function hasOutputRule(name: string): boolean {
  return ruleOf(name) !== undefined;
}

/**
 * The returns of an op call, in the schema's order, as far as a rule derives them: a tensor
 * (`dims`, and `dtype` in `Input type` spelling when known), a list of tensors, `null` for a return
 * the call leaves undefined, `undefined` for one not derived (the array may stop before the
 * schema's last returns). Undefined as a whole when the op has no rule or the call is not one its
 * rule understands. Worked out once per (name, args object): the model shares args objects.
 */
export function deriveOpOutputs(name: string, args: JsonObject | undefined): readonly DerivedOutput[] | undefined {
  if (!args) return undefined;
  let byName = memo.get(args);
  if (!byName) memo.set(args, (byName = new Map()));
  if (byName.has(name)) return byName.get(name);
  const rule = ruleOf(name);
  const call = rule ? RecordedCall.of(args) : undefined;
  const out = rule && call ? rule(call) : undefined;
  byName.set(name, out);
  return out;
}

const memo = new WeakMap<JsonObject, Map<string, readonly DerivedOutput[] | undefined>>();

/** The tensors among an op's derived returns (list members included), in order; empty when none is derived. */
export function derivedTensors(name: string, args: JsonObject | undefined): readonly DerivedTensor[] {
  const outs = deriveOpOutputs(name, args);
  if (!outs) return NO_TENSORS;
  const tensors: DerivedTensor[] = [];
  for (const o of outs) {
    if (!o) continue;
    if ('list' in o) tensors.push(...o.list);
    else tensors.push(o);
  }
  return tensors;
}

const NO_TENSORS: readonly DerivedTensor[] = [];
