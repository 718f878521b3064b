#!/usr/bin/env python3
"""An fp8 GEMM through torch._scaled_mm, profiled (Hopper and later: e4m3 operands, bf16 out).

a [M, K] and b [K, N] (column-major, as _scaled_mm needs) in float8_e4m3fn with one float32
scale each (tensor-wise scaling), the product in bf16. What the trace shows: aten::_scaled_mm
with its Input Dims and an fp8 GEMM kernel (cuBLASLt's nvjet / CUTLASS e4m3 kernels).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _profiling import capture, make_parser  # noqa: E402  (no torch imported yet)

EXAMPLES = """\
  python3 workloads/scaled_mm.py                    # 8192 x 4096 x 4096, e4m3 -> bf16
  python3 workloads/scaled_mm.py --m 4096 --k 8192 --n 8192
"""


def main() -> None:
    parser = make_parser("scaled_mm.py", __doc__.strip(), EXAMPLES)
    shape = parser.add_argument_group("shape (multiples of 16, as fp8 GEMMs need)")
    shape.add_argument("--m", type=int, default=8192, help="rows of a (default: 8192)")
    shape.add_argument("--k", type=int, default=4096, help="the reduction dimension (default: 4096)")
    shape.add_argument("--n", type=int, default=4096, help="columns of b (default: 4096)")
    args = parser.parse_args()

    def build(torch, dtype, device):
        f8 = torch.float8_e4m3fn
        a = torch.randn(args.m, args.k, device=device).to(f8)
        b = torch.randn(args.n, args.k, device=device).to(f8).t()  # column-major [K, N]
        one = torch.tensor(1.0, device=device)

        def gemm(a, b):
            return torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)

        return gemm, (a, b)

    capture(args, base="scaled_mm", annotation="scaled_mm_fwd", build=build)


if __name__ == "__main__":
    main()
