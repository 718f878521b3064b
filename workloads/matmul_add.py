#!/usr/bin/env python3
"""torch.add(torch.matmul(x, w), b), profiled (part one of the series).

What the trace shows: eager, aten::matmul -> aten::mm and a separate aten::add, two kernels
(the GEMM, then the elementwise add); compiled, Inductor folds the add into aten::addmm,
one GEMM kernel with a bias epilogue.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _profiling import capture, make_parser  # noqa: E402  (no torch imported yet)

EXAMPLES = """\
  python3 workloads/matmul_add.py                   # x 1024x32 @ w 32x64 + b 64, bf16, eager
  python3 workloads/matmul_add.py --compile         # the same under torch.compile
"""


def main() -> None:
    parser = make_parser("matmul_add.py", __doc__.strip(), EXAMPLES)
    shape = parser.add_argument_group("shape")
    shape.add_argument("--batch", type=int, default=1024, help="rows of x (default: 1024)")
    shape.add_argument("--in_dim", "--in-dim", type=int, default=32, help="columns of x, rows of w (default: 32)")
    shape.add_argument("--out_dim", "--out-dim", type=int, default=64, help="columns of w, length of b (default: 64)")
    args = parser.parse_args()

    def build(torch, dtype, device):
        x = torch.randn(args.batch, args.in_dim, device=device, dtype=dtype)
        w = torch.randn(args.in_dim, args.out_dim, device=device, dtype=dtype)
        b = torch.randn(args.out_dim, device=device, dtype=dtype)

        def matmul_add(x, w, b):
            return torch.add(torch.matmul(x, w), b)

        return matmul_add, (x, w, b)

    capture(args, base="matmul_add", annotation="matmul_add_fwd", build=build)


if __name__ == "__main__":
    main()
