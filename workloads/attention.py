#!/usr/bin/env python3
"""A self-attention block, forward and backward, profiled.

x [batch, seq, heads*head_dim] -> qkv Linear -> attention -> out Linear; the loss is the
output's mean square, then backward. Causal unless --not-causal; with --kv-heads below --heads,
grouped-query attention (enable_gqa=True). --backend picks the implementation: SDPA's own choice
(auto: on an H200, cuDNN's flash attention for bf16), one of SDPA's backends, or flex:
torch.nn.attention.flex_attention under torch.compile (flex runs only compiled) with a causal
block mask (none with --not-causal). --float-mask gives SDPA an additive float mask instead of
is_causal (so not causal): [batch, 1, seq, seq] zeros, with the last seq/8 keys of every other
sequence at the dtype's lowest value (padding). What the trace shows: the attention op and its
backward, the attention kernels (cuDNN flash fprop/bprop, FlashAttention's flash_fwd/bwd, the
memory-efficient fmha kernels, flex's Triton templates), the projection GEMMs.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _profiling import capture, make_parser  # noqa: E402  (no torch imported yet)

EXAMPLES = """\
  python3 workloads/attention.py                          # causal, bf16, SDPA's own choice
  python3 workloads/attention.py --compile
  python3 workloads/attention.py --backend flash --kv-heads 4 --name attention_gqa_flash
  python3 workloads/attention.py --backend flex --name flex_attention      # compiled flex, causal block mask
  python3 workloads/attention.py --float-mask --name attention_float_mask  # additive float mask
"""

BACKENDS = ("auto", "flash", "efficient", "cudnn", "math", "flex")


def main() -> None:
    parser = make_parser("attention.py", __doc__.strip(), EXAMPLES)
    shape = parser.add_argument_group("shape")
    shape.add_argument("--batch", type=int, default=8, help="batch (default: 8)")
    shape.add_argument("--seq", type=int, default=1024, help="sequence length (default: 1024)")
    shape.add_argument("--heads", type=int, default=12, help="query heads (default: 12)")
    shape.add_argument("--kv-heads", type=int, default=None, help="key/value heads (default: --heads; fewer: GQA)")
    shape.add_argument("--head-dim", type=int, default=64, help="head dimension (default: 64)")
    model = parser.add_argument_group("attention")
    model.add_argument("--backend", choices=BACKENDS, default="auto",
                       help="SDPA backend, or flex: compiled flex_attention with a block mask (default: auto)")
    model.add_argument("--not-causal", action="store_true", help="full attention instead of causal")
    model.add_argument("--float-mask", action="store_true",
                       help="an additive float mask (padding at the lowest value) instead of causal: implies --not-causal")
    args = parser.parse_args()
    if args.float_mask and args.backend == "flex":
        parser.error("--float-mask is SDPA's attn_mask; flex takes a block mask or a score_mod, not a float mask")
    causal = not (args.not_causal or args.float_mask)

    def build(torch, dtype, device, compile_fn):
        nn, F = torch.nn, torch.nn.functional
        h, d = args.heads, args.head_dim
        hk = args.kv_heads or h
        e = h * d
        flex = block_mask = mask = None
        if args.backend == "flex":
            from torch.nn.attention.flex_attention import create_block_mask, flex_attention

            flex = torch.compile(flex_attention)  # flex_attention runs as Triton templates only compiled
            if causal:
                block_mask = create_block_mask(lambda b, hh, qi, ki: qi >= ki, B=None, H=None,
                                               Q_LEN=args.seq, KV_LEN=args.seq, device=device)
        elif args.float_mask:
            mask = torch.zeros(args.batch, 1, args.seq, args.seq, device=device, dtype=dtype)
            mask[1::2, :, :, args.seq - args.seq // 8:] = torch.finfo(dtype).min

        class Attention(nn.Module):
            def __init__(self):
                super().__init__()
                self.qkv = nn.Linear(e, e + 2 * hk * d)
                self.proj = nn.Linear(e, e)

            def forward(self, x):
                b, s, _ = x.shape
                q, k, v = self.qkv(x).split([e, hk * d, hk * d], dim=-1)
                q = q.view(b, s, h, d).transpose(1, 2)
                k = k.view(b, s, hk, d).transpose(1, 2)
                v = v.view(b, s, hk, d).transpose(1, 2)
                extra = {"enable_gqa": True} if hk != h else {}
                if flex is not None:
                    o = flex(q, k, v, block_mask=block_mask, **extra)
                elif mask is not None:
                    o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, **extra)
                else:
                    o = F.scaled_dot_product_attention(q, k, v, is_causal=causal, **extra)
                return self.proj(o.transpose(1, 2).reshape(b, s, e))

        block = Attention().to(device, dtype=dtype).train()
        forward = compile_fn(block)
        x = torch.randn(args.batch, args.seq, e, device=device, dtype=dtype, requires_grad=True)
        if args.backend in ("auto", "flex"):
            import contextlib
            ctx = contextlib.nullcontext
        else:
            from torch.nn.attention import SDPBackend, sdpa_kernel
            chosen = {"flash": SDPBackend.FLASH_ATTENTION, "efficient": SDPBackend.EFFICIENT_ATTENTION,
                      "cudnn": SDPBackend.CUDNN_ATTENTION, "math": SDPBackend.MATH}[args.backend]
            ctx = lambda: sdpa_kernel(chosen)  # noqa: E731

        def step(x):
            with ctx():
                loss = forward(x).float().pow(2).mean()
                loss.backward()
            return loss.detach()

        return step, (x,)

    capture(args, base="attention", annotation="attn_step", build=build, compiles_inside=True)


if __name__ == "__main__":
    main()
