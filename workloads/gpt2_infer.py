#!/usr/bin/env python3
"""A small GPT-2 (transformers, random weights) forward for inference, profiled.

GPT2LMHeadModel with --layers layers of width 768 and 12 heads, its parameters in --dtype
(default bf16, no autocast), in eval mode; each step is one forward over batch x seq token ids
under torch.no_grad() (the logits, no KV cache kept, no loss). With --compile the model is
compiled under no_grad (an inference graph); --compile-mode reduce-overhead replays it as a CUDA
graph. The eager and the compiled captures run the same shapes, so a diff of the two compares
the same work. What the trace shows: eager, each op's kernels launched from Python; compiled
with CUDA graphs, one cudaGraphLaunch per step replaying Inductor's kernels, no op recording shapes.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _profiling import capture, make_parser  # noqa: E402  (no torch imported yet)

EXAMPLES = """\
  python3 workloads/gpt2_infer.py                                                        # eager
  python3 workloads/gpt2_infer.py --compile --compile-mode reduce-overhead --name gpt2_infer_compile_cg
"""


def main() -> None:
    parser = make_parser("gpt2_infer.py", __doc__.strip(), EXAMPLES)
    shape = parser.add_argument_group("shape")
    shape.add_argument("--layers", type=int, default=4, help="transformer layers (default: 4)")
    shape.add_argument("--batch", type=int, default=8, help="sequences per step (default: 8)")
    shape.add_argument("--seq", type=int, default=512, help="tokens per sequence (default: 512)")
    args = parser.parse_args()

    def build(torch, dtype, device, compile_fn):
        from transformers import GPT2Config, GPT2LMHeadModel

        cfg = GPT2Config(n_layer=args.layers, n_embd=768, n_head=12, n_positions=max(1024, args.seq))
        model = GPT2LMHeadModel(cfg).to(device=device, dtype=dtype).eval()
        ids = torch.randint(0, cfg.vocab_size, (args.batch, args.seq), device=device)
        ro = args.compile and args.compile_mode == "reduce-overhead"
        with torch.no_grad():
            forward = compile_fn(model)

        def infer(ids):
            with torch.no_grad():
                if ro:
                    torch.compiler.cudagraph_mark_step_begin()
                forward(input_ids=ids, use_cache=False)

        return infer, (ids,)

    capture(args, base="gpt2_infer", annotation="infer_step", build=build, compiles_inside=True)


if __name__ == "__main__":
    main()
