#!/usr/bin/env python3
"""A small Llama (transformers, random weights) generating tokens with its KV cache, profiled.

LlamaForCausalLM with --layers layers of width --dim, --heads query heads and --kv-heads key/value
heads (grouped-query attention), in --dtype; each profiled step is `generate(max_new_tokens=N)`
greedily from a --prompt-token prompt: one prefill, then N - 1 decode steps of one token each.
What the trace shows: decoding is many small kernels per token (GEMV-shaped GEMMs, RMSNorm,
rotary, SDPA over the cache), each launched from Python: the host, not the GPU, sets the pace.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _profiling import capture, make_parser  # noqa: E402  (no torch imported yet)

EXAMPLES = """\
  python3 workloads/llm_decode.py                       # 4 layers, 1024 wide, 16 new tokens
  python3 workloads/llm_decode.py --new-tokens 64 --batch 8
"""


def main() -> None:
    parser = make_parser("llm_decode.py", __doc__.strip(), EXAMPLES)
    shape = parser.add_argument_group("shape")
    shape.add_argument("--layers", type=int, default=4, help="decoder layers (default: 4)")
    shape.add_argument("--dim", type=int, default=1024, help="hidden size (default: 1024)")
    shape.add_argument("--heads", type=int, default=16, help="query heads (default: 16)")
    shape.add_argument("--kv-heads", type=int, default=4, help="key/value heads (default: 4)")
    shape.add_argument("--batch", type=int, default=1, help="prompts per step (default: 1)")
    shape.add_argument("--prompt-tokens", type=int, default=128, help="prompt length (default: 128)")
    shape.add_argument("--new-tokens", type=int, default=16, help="tokens generated per step (default: 16)")
    args = parser.parse_args()

    def build(torch, dtype, device):
        from transformers import LlamaConfig, LlamaForCausalLM

        cfg = LlamaConfig(
            hidden_size=args.dim,
            intermediate_size=args.dim * 8 // 3 // 64 * 64,
            num_hidden_layers=args.layers,
            num_attention_heads=args.heads,
            num_key_value_heads=args.kv_heads,
            vocab_size=32000,
            max_position_embeddings=4096,
        )
        model = LlamaForCausalLM(cfg).to(device=device, dtype=dtype).eval()
        ids = torch.randint(0, cfg.vocab_size, (args.batch, args.prompt_tokens), device=device)
        mask = torch.ones_like(ids)

        def generate(ids, mask):
            with torch.no_grad():
                return model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=args.new_tokens,
                                      min_new_tokens=args.new_tokens, do_sample=False, pad_token_id=0)

        return generate, (ids, mask)

    capture(args, base="llm_decode", annotation="generate", build=build)


if __name__ == "__main__":
    main()
