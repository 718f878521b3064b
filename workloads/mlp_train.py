#!/usr/bin/env python3
"""The seed's ReLU MLP in a training step, profiled: forward, backward, AdamW.

Linear(dim, hidden) ReLU Linear(hidden, hidden) ReLU Linear(hidden, dim), biased; parameters in
fp32, forward under autocast in --dtype (default bf16); mean-square loss, backward, AdamW.
With --compile the model (not the optimizer) is compiled; --compile-mode reduce-overhead records
forward and backward as CUDA graphs, so the trace shows cudaGraphLaunch replays in place of the
kernels' launches (the kernels still appear on the GPU stream).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _profiling import capture, make_parser, mse_train_step  # noqa: E402  (no torch imported yet)
from simple_mlp import add_shape_args, relu_mlp  # noqa: E402

EXAMPLES = """\
  python3 workloads/mlp_train.py                                        # eager
  python3 workloads/mlp_train.py --compile --compile-mode reduce-overhead  # CUDA graphs
"""


def main() -> None:
    parser = make_parser("mlp_train.py", __doc__.strip(), EXAMPLES)
    add_shape_args(parser)
    args = parser.parse_args()

    def build(torch, dtype, device, compile_fn):
        model = relu_mlp(torch, args.dim, args.hidden).to(device).train()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
        forward = compile_fn(model)
        x = torch.randn(args.batch, args.seq, args.dim, device=device)
        ro = args.compile and args.compile_mode == "reduce-overhead"
        return mse_train_step(torch, forward, opt, dtype, cuda_graphs=ro), (x,)

    capture(args, base="mlp_train", annotation="train_step", build=build, compiles_inside=True)


if __name__ == "__main__":
    main()
