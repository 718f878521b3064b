#!/usr/bin/env python3
"""The GeGLU block with GeLU*mul in one hand-written Triton kernel, profiled (the seed's
03_kernels_mlp.py, which fetched Liger's GeGLU kernel from the Hub; this one is written here).

What the trace shows: the three GEMMs of simple_mlp.py --mlp geglu, and between them one
`geglu_fwd` Triton kernel where eager runs a GeLU and a mul kernel: compare it with the fused
kernel Inductor writes for `simple_mlp.py --mlp geglu --compile`.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _profiling import capture, make_parser  # noqa: E402  (no torch imported yet)
from simple_mlp import add_shape_args, geglu_mlp_class  # noqa: E402

EXAMPLES = """\
  python3 workloads/kernels_mlp.py                  # 64x128x768, hidden 3072, bf16
  python3 workloads/kernels_mlp.py --compile        # the GEMMs compiled, the Triton kernel kept
"""

BLOCK = 1024


def triton_geglu(torch):
    """gelu_tanh(g) * u, elementwise, in one kernel: g and u read once, the product written once."""
    import triton
    import triton.language as tl

    @triton.jit
    def geglu_fwd(g_ptr, u_ptr, o_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        g = tl.load(g_ptr + offs, mask=mask).to(tl.float32)
        u = tl.load(u_ptr + offs, mask=mask).to(tl.float32)
        inner = 0.7978845608028654 * (g + 0.044715 * g * g * g)  # sqrt(2/pi) (g + 0.044715 g^3)
        h = g * tl.sigmoid(2.0 * inner)  # 0.5 (1 + tanh(z)) = sigmoid(2z): tanh-approximated gelu
        tl.store(o_ptr + offs, (h * u).to(o_ptr.dtype.element_ty), mask=mask)

    def geglu(g, u):
        g, u = g.contiguous(), u.contiguous()
        o = torch.empty_like(g)
        n = g.numel()
        geglu_fwd[(triton.cdiv(n, BLOCK),)](g, u, o, n, BLOCK=BLOCK)
        return o

    return geglu


def main() -> None:
    parser = make_parser("kernels_mlp.py", __doc__.strip(), EXAMPLES)
    add_shape_args(parser)
    args = parser.parse_args()
    if not args.device.startswith("cuda"):
        sys.exit("kernels_mlp.py runs a Triton kernel: it needs a CUDA device")

    def build(torch, dtype, device):
        geglu = triton_geglu(torch)

        class KernelsMLP(geglu_mlp_class(torch)):  # same weights layout, GeLU*mul in the hand kernel
            def forward(self, x):
                return self.down_proj(geglu(self.gate_proj(x), self.up_proj(x)))

        model = KernelsMLP(args.dim, args.hidden).to(device, dtype=dtype).eval()
        x = torch.randn(args.batch, args.seq, args.dim, device=device, dtype=dtype)
        return model, (x,)

    capture(args, base="kernels_mlp", annotation="mlp_fwd", build=build)


if __name__ == "__main__":
    main()
