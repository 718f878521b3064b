#!/usr/bin/env python3
"""A small BERT (transformers BertForMaskedLM, random weights, nothing downloaded) training step, profiled.

BertForMaskedLM built from a BertConfig of --layers layers, width --dim, --heads heads, with
SDPA attention (attn_implementation="sdpa"); batch x seq token ids whose attention mask pads the
last --pad tokens of every other sequence (so SDPA gets a real mask, as fine-tuning on padded
batches does), 15% of the tokens as masked-LM labels; the forward under autocast in --dtype
(default bf16), the loss, backward, AdamW. With --compile the model (not the optimizer) is
compiled; --compile-mode reduce-overhead records its forward and backward as CUDA graphs.
What the trace shows: which attention implementation SDPA picked for a masked bf16 call (eager)
and what Inductor put in its place (compiled), the GELU and LayerNorm kernels, the LM head's GEMMs.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _profiling import capture, make_parser  # noqa: E402  (no torch imported yet)

EXAMPLES = """\
  python3 workloads/bert_train.py                                          # eager, bf16 autocast
  python3 workloads/bert_train.py --compile --compile-mode reduce-overhead  # CUDA graphs
  python3 workloads/bert_train.py --execution-trace                        # with torch's execution trace
"""


def main() -> None:
    parser = make_parser("bert_train.py", __doc__.strip(), EXAMPLES)
    shape = parser.add_argument_group("shape")
    shape.add_argument("--layers", type=int, default=2, help="encoder layers (default: 2)")
    shape.add_argument("--dim", type=int, default=768, help="hidden size (default: 768)")
    shape.add_argument("--heads", type=int, default=12, help="attention heads (default: 12)")
    shape.add_argument("--batch", type=int, default=16, help="sequences per step (default: 16)")
    shape.add_argument("--seq", type=int, default=256, help="tokens per sequence (default: 256)")
    shape.add_argument("--pad", type=int, default=32,
                       help="padding tokens at the end of every other sequence, masked out (default: 32)")
    args = parser.parse_args()
    if not 0 <= args.pad < args.seq:
        parser.error("--pad must be at least 0 and less than --seq")

    def build(torch, dtype, device, compile_fn):
        from transformers import BertConfig, BertForMaskedLM

        cfg = BertConfig(
            hidden_size=args.dim,
            num_hidden_layers=args.layers,
            num_attention_heads=args.heads,
            intermediate_size=4 * args.dim,
            max_position_embeddings=max(512, args.seq),
            attn_implementation="sdpa",
        )
        model = BertForMaskedLM(cfg).to(device).train()
        print(f"attention implementation: {model.config._attn_implementation}", flush=True)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
        forward = compile_fn(model)
        ids = torch.randint(0, cfg.vocab_size, (args.batch, args.seq), device=device)
        mask = torch.ones_like(ids)
        if args.pad:
            mask[::2, args.seq - args.pad:] = 0
        labels = torch.where(torch.rand(ids.shape, device=device) < 0.15, ids, torch.full_like(ids, -100))
        ro = args.compile and args.compile_mode == "reduce-overhead"

        def step(ids, mask, labels):
            if ro:
                torch.compiler.cudagraph_mark_step_begin()
            with torch.autocast("cuda", dtype=dtype, enabled=dtype != torch.float32):
                loss = forward(input_ids=ids, attention_mask=mask, labels=labels).loss
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            return loss.detach()

        return step, (ids, mask, labels)

    capture(args, base="bert_train", annotation="train_step", build=build, compiles_inside=True)


if __name__ == "__main__":
    main()
