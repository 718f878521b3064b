#!/usr/bin/env python3
"""One nn.Linear(in_dim, out_dim, bias=True) forward, profiled (the seed's 02_linear.py).

What the trace shows: aten::linear -> aten::t (a view: no kernel) + aten::addmm, one GEMM
kernel whose epilogue adds the bias (no aten::add); compiled, the same kernel with aten::t gone.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _profiling import capture, make_parser  # noqa: E402  (no torch imported yet)

EXAMPLES = """\
  python3 workloads/linear.py                       # 1024x32 -> 64, bf16, eager
  python3 workloads/linear.py --compile             # the same under torch.compile
  python3 workloads/linear.py --batch 8192 --in_dim 4096 --out_dim 4096 --out traces/big
"""


def main() -> None:
    parser = make_parser("linear.py", __doc__.strip(), EXAMPLES)
    shape = parser.add_argument_group("shape")
    shape.add_argument("--batch", type=int, default=1024, help="rows of the input x (default: 1024)")
    shape.add_argument("--in_dim", "--in-dim", type=int, default=32, help="input features (default: 32)")
    shape.add_argument("--out_dim", "--out-dim", type=int, default=64, help="output features (default: 64)")
    args = parser.parse_args()

    def build(torch, dtype, device):
        layer = torch.nn.Linear(args.in_dim, args.out_dim, bias=True).to(device, dtype=dtype).eval()
        x = torch.randn(args.batch, args.in_dim, device=device, dtype=dtype)
        return layer, (x,)

    capture(args, base="linear", annotation="linear_fwd", build=build)


if __name__ == "__main__":
    main()
