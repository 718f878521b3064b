#!/usr/bin/env python3
"""A small GPT-2 (transformers, random weights) training step, profiled.

GPT2LMHeadModel with --layers layers of width 768 and 12 heads, batch x seq token ids, the
forward under bf16 autocast, the language-model loss, backward, AdamW. The vocabulary (50257,
not a multiple of 8) makes the LM head's GEMMs misaligned: watch which kernels they land on.
With --compile the model (not the optimizer) is compiled. Add --profile-memory and
--with-stack for the memory timeline, torch's memory columns and the nn.Module frames.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _profiling import capture, make_parser  # noqa: E402  (no torch imported yet)

EXAMPLES = """\
  python3 workloads/gpt2_train.py                                   # eager, 6 layers, 8 x 512
  python3 workloads/gpt2_train.py --compile
  python3 workloads/gpt2_train.py --profile-memory --with-stack --name gpt2_train_mem
"""


def main() -> None:
    parser = make_parser("gpt2_train.py", __doc__.strip(), EXAMPLES)
    shape = parser.add_argument_group("shape")
    shape.add_argument("--layers", type=int, default=6, help="transformer layers (default: 6)")
    shape.add_argument("--batch", type=int, default=8, help="sequences per step (default: 8)")
    shape.add_argument("--seq", type=int, default=512, help="tokens per sequence (default: 512)")
    args = parser.parse_args()

    def build(torch, dtype, device, compile_fn):
        from transformers import GPT2Config, GPT2LMHeadModel

        cfg = GPT2Config(n_layer=args.layers, n_embd=768, n_head=12, n_positions=max(1024, args.seq))
        model = GPT2LMHeadModel(cfg).to(device).train()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
        forward = compile_fn(model)
        ids = torch.randint(0, cfg.vocab_size, (args.batch, args.seq), device=device)

        def step(ids):
            with torch.autocast("cuda", dtype=dtype, enabled=dtype != torch.float32):
                loss = forward(input_ids=ids, labels=ids).loss
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            return loss.detach()

        return step, (ids,)

    capture(args, base="gpt2_train", annotation="train_step", build=build, compiles_inside=True)


if __name__ == "__main__":
    main()
