#!/usr/bin/env python3
"""A small GPT-2 (transformers, random weights) training step, profiled.

GPT2LMHeadModel with --layers layers of width 768 and 12 heads, batch x seq token ids, the
forward under bf16 autocast, the language-model loss, backward, AdamW. The vocabulary (50257,
not a multiple of 8) makes the LM head's GEMMs misaligned: watch which kernels they land on.
With --compile the model (not the optimizer) is compiled. Add --profile-memory and
--with-stack for the memory timeline, torch's memory columns and the nn.Module frames.
--checkpointing turns on activation checkpointing (gradient_checkpointing_enable, use_reentrant=False):
each block's forward runs again inside the backward (with --with-stack, checkpoint.py's frames
show where). --grad-scaler scales the loss with torch.amp.GradScaler, as fp16 training does (its
inf check reads a flag back to the host with .item() every step).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _profiling import capture, make_parser  # noqa: E402  (no torch imported yet)

EXAMPLES = """\
  python3 workloads/gpt2_train.py                                   # eager, 6 layers, 8 x 512
  python3 workloads/gpt2_train.py --compile
  python3 workloads/gpt2_train.py --profile-memory --with-stack --name gpt2_train_mem
  python3 workloads/gpt2_train.py --layers 4 --checkpointing --with-stack --name gpt2_train_ckpt
  python3 workloads/gpt2_train.py --layers 2 --dtype fp16 --grad-scaler --name gradscaler_train
"""


def main() -> None:
    parser = make_parser("gpt2_train.py", __doc__.strip(), EXAMPLES)
    shape = parser.add_argument_group("shape")
    shape.add_argument("--layers", type=int, default=6, help="transformer layers (default: 6)")
    shape.add_argument("--batch", type=int, default=8, help="sequences per step (default: 8)")
    shape.add_argument("--seq", type=int, default=512, help="tokens per sequence (default: 512)")
    train = parser.add_argument_group("training")
    train.add_argument("--checkpointing", action="store_true",
                       help="activation checkpointing: gradient_checkpointing_enable(use_reentrant=False)")
    train.add_argument("--grad-scaler", action="store_true",
                       help="scale the loss with torch.amp.GradScaler (fp16 training's loss scaling)")
    args = parser.parse_args()

    def build(torch, dtype, device, compile_fn):
        from transformers import GPT2Config, GPT2LMHeadModel

        cfg = GPT2Config(n_layer=args.layers, n_embd=768, n_head=12, n_positions=max(1024, args.seq))
        model = GPT2LMHeadModel(cfg).to(device).train()
        if args.checkpointing:
            model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
        scaler = torch.amp.GradScaler("cuda") if args.grad_scaler else None
        forward = compile_fn(model)
        ids = torch.randint(0, cfg.vocab_size, (args.batch, args.seq), device=device)

        # (checkpointing recomputes the forward, which must not build a KV cache)
        extra = {"use_cache": False} if args.checkpointing else {}

        def step(ids):
            with torch.autocast("cuda", dtype=dtype, enabled=dtype != torch.float32):
                loss = forward(input_ids=ids, labels=ids, **extra).loss
            if args.grad_scaler:
                scaler.scale(loss).backward()
                scaler.step(opt)  # reads the inf flags back with .item(): a host sync each step
                scaler.update()
            else:
                loss.backward()
                opt.step()
            opt.zero_grad(set_to_none=True)
            return loss.detach()

        return step, (ids,)

    capture(args, base="gpt2_train", annotation="train_step", build=build, compiles_inside=True)


if __name__ == "__main__":
    main()
