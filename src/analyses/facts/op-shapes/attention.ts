/**
 * Scaled dot-product attention, the public op and its backends (flash, memory-efficient, cuDNN;
 * forward and backward): the output has the query's shape with the value's head size, in the
 * query's dtype; the gradients have the shapes of query, key and value. The backends' other
 * returns (log-sum-exp, RNG state, sequence offsets) are left underived but for flash's
 * log-sum-exp, whose shape torch fixes ([B, H, L] in float).
 *
 * The public op and the `_scaled_dot_product_*` ops take [B, H, L, E]; the `_flash_attention_*`
 * and `_efficient_attention_*` ops they call take [B, L, H, E]; both keep the head size last.
 */
import { DEFAULT_FLOAT } from '../dtypes.js';
import { tensorOf, type DerivedOutput, type OpRule } from './shape-math.js';

/** The query (argument q) with the value's (argument v) last dimension. */
function attentionOutput(q: number, v: number, more: (dims: readonly number[]) => readonly DerivedOutput[] = () => []): OpRule {
  return (c) => {
    const query = c.tensor(q);
    const value = c.tensor(v);
    if (!query || !value || query.dims.length < 2 || value.dims.length < 2) return undefined;
    return [tensorOf([...query.dims.slice(0, -1), value.dims[value.dims.length - 1]!], query.dtype), ...more(query.dims)];
  };
}

/** Flash's log-sum-exp: [B, H, L] in float, of a [B, H, L, E] query. */
const flashLogSumExp = (q: readonly number[]): readonly DerivedOutput[] => (q.length === 4 ? [tensorOf(q.slice(0, 3), DEFAULT_FLOAT)] : []);

/** A backward's (grad_query, grad_key, grad_value): the shapes and dtypes of its arguments 1, 2, 3. */
const qkvGradients: OpRule = (c) => {
  const q = c.tensor(1);
  const k = c.tensor(2);
  const v = c.tensor(3);
  return q && k && v ? [q, k, v] : undefined;
};

export const ATTENTION_RULES: Readonly<Record<string, OpRule>> = {
  scaled_dot_product_attention: attentionOutput(0, 2),
  _scaled_dot_product_attention_math: attentionOutput(0, 2),
  _scaled_dot_product_flash_attention: attentionOutput(0, 2, flashLogSumExp),
  _scaled_dot_product_efficient_attention: attentionOutput(0, 2),
  _scaled_dot_product_cudnn_attention: attentionOutput(0, 2),
  _flash_attention_forward: attentionOutput(0, 2),
  _efficient_attention_forward: attentionOutput(0, 2),
  _cudnn_attention_forward: attentionOutput(0, 2),
  _scaled_dot_product_flash_attention_backward: qkvGradients,
  _scaled_dot_product_efficient_attention_backward: qkvGradients,
  _scaled_dot_product_cudnn_attention_backward: qkvGradients,
  _flash_attention_backward: qkvGradients,
  _efficient_attention_backward: qkvGradients,
  _cudnn_attention_backward: qkvGradients,
};
