#!/usr/bin/env python3
"""A training step whose compiled forward a data-dependent Python branch splits in two, profiled.

Three Linear-GELU-Linear blocks (dim -> hidden -> dim, biased) with residuals; the forward runs
the first, reads the mean of its output back to the host with .item() and, by that number's sign,
runs the second or the third (a Python `if` on tensor data). Under --compile, Dynamo cannot trace
through .item() (capture_scalar_outputs is off, torch's default): it ends the graph there and
compiles the rest as a second graph, so each step runs two compiled regions (and two compiled
backward graphs), with the host sync, guard checks and Python between them. The forward under
autocast in --dtype (default bf16), mean-square loss, backward, AdamW. Eager, the same step
without any compiled region (the control).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _profiling import capture, make_parser, mse_train_step  # noqa: E402  (no torch imported yet)

EXAMPLES = """\
  python3 workloads/graph_break.py --compile --name graph_break     # two compiled regions per step
  python3 workloads/graph_break.py                                  # eager, the control
"""


def main() -> None:
    parser = make_parser("graph_break.py", __doc__.strip(), EXAMPLES)
    shape = parser.add_argument_group("shape (input batch x seq x dim)")
    shape.add_argument("--batch", type=int, default=32, help="batch (default: 32)")
    shape.add_argument("--seq", type=int, default=128, help="sequence length (default: 128)")
    shape.add_argument("--dim", type=int, default=768, help="model dimension (default: 768)")
    shape.add_argument("--hidden", type=int, default=3072, help="hidden dimension (default: 3072)")
    args = parser.parse_args()

    def build(torch, dtype, device, compile_fn):
        nn, F = torch.nn, torch.nn.functional

        def block():
            return nn.Sequential(nn.Linear(args.dim, args.hidden), nn.GELU(), nn.Linear(args.hidden, args.dim))

        class Branchy(nn.Module):
            def __init__(self):
                super().__init__()
                self.first, self.pos, self.neg = block(), block(), block()

            def forward(self, x):
                h = x + self.first(x)
                if h.float().mean().item() >= 0:  # data-dependent: the graph breaks here
                    return h + self.pos(h)
                return h + self.neg(h)

        model = Branchy().to(device).train()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
        forward = compile_fn(model)
        x = torch.randn(args.batch, args.seq, args.dim, device=device)
        return mse_train_step(torch, forward, opt, dtype), (x,)

    capture(args, base="graph_break", annotation="train_step", build=build, compiles_inside=True)


if __name__ == "__main__":
    main()
