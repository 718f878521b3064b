#!/usr/bin/env python3
"""A small Llama (transformers, random weights) training step with grouped-query attention, profiled.

LlamaForCausalLM with --layers layers of width --dim, --heads query heads and --kv-heads
key/value heads (grouped-query attention when fewer), RMSNorm, rotary embeddings, SwiGLU MLP,
SDPA attention; batch x seq token ids, the forward under autocast in --dtype (default bf16), the
causal-LM loss, backward, AdamW. What the trace shows: eager RMSNorm as a chain of small kernels
(pow, mean, rsqrt, mul) and its backward, the rotary embedding's slicing and cat, SDPA with
key/value heads fewer than query heads, the SwiGLU GEMMs.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _profiling import capture, make_parser  # noqa: E402  (no torch imported yet)

EXAMPLES = """\
  python3 workloads/llama_train.py                     # 2 layers, 1024 wide, 16 query / 4 kv heads
  python3 workloads/llama_train.py --kv-heads 16       # the same without GQA
"""


def main() -> None:
    parser = make_parser("llama_train.py", __doc__.strip(), EXAMPLES)
    shape = parser.add_argument_group("shape")
    shape.add_argument("--layers", type=int, default=2, help="decoder layers (default: 2)")
    shape.add_argument("--dim", type=int, default=1024, help="hidden size (default: 1024)")
    shape.add_argument("--heads", type=int, default=16, help="query heads (default: 16)")
    shape.add_argument("--kv-heads", type=int, default=4, help="key/value heads (default: 4)")
    shape.add_argument("--vocab", type=int, default=32000, help="vocabulary (default: 32000)")
    shape.add_argument("--batch", type=int, default=8, help="sequences per step (default: 8)")
    shape.add_argument("--seq", type=int, default=512, help="tokens per sequence (default: 512)")
    args = parser.parse_args()
    if args.heads % args.kv_heads:
        parser.error("--heads must be a multiple of --kv-heads")

    def build(torch, dtype, device, compile_fn):
        from transformers import LlamaConfig, LlamaForCausalLM

        cfg = LlamaConfig(
            hidden_size=args.dim,
            intermediate_size=args.dim * 8 // 3 // 64 * 64,
            num_hidden_layers=args.layers,
            num_attention_heads=args.heads,
            num_key_value_heads=args.kv_heads,
            vocab_size=args.vocab,
            max_position_embeddings=max(2048, args.seq),
            attn_implementation="sdpa",
        )
        model = LlamaForCausalLM(cfg).to(device).train()
        print(f"attention implementation: {model.config._attn_implementation}", flush=True)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
        forward = compile_fn(model)
        ids = torch.randint(0, cfg.vocab_size, (args.batch, args.seq), device=device)
        ro = args.compile and args.compile_mode == "reduce-overhead"

        def step(ids):
            if ro:
                torch.compiler.cudagraph_mark_step_begin()
            with torch.autocast("cuda", dtype=dtype, enabled=dtype != torch.float32):
                loss = forward(input_ids=ids, labels=ids).loss
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            return loss.detach()

        return step, (ids,)

    capture(args, base="llama_train", annotation="train_step", build=build, compiles_inside=True)


if __name__ == "__main__":
    main()
