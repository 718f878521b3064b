#!/usr/bin/env python3
"""A two-layer LSTM (cuDNN) in a training step with fused AdamW, profiled.

nn.LSTM(--dim, --hidden, 2 layers, batch_first) then a Linear head, in fp32 parameters with the
forward under autocast in --dtype; mean-square loss, backward, AdamW(fused=True). What the trace
shows: cuDNN's RNN kernels (the recurrent GEMMs and the elementwise cell kernels, per time step),
the fused optimizer's few multi-tensor kernels in place of a kernel per parameter.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _profiling import capture, make_parser, mse_train_step  # noqa: E402  (no torch imported yet)

EXAMPLES = """\
  python3 workloads/lstm_train.py                      # batch 32, 128 steps, 512 wide
"""


def main() -> None:
    parser = make_parser("lstm_train.py", __doc__.strip(), EXAMPLES)
    shape = parser.add_argument_group("shape")
    shape.add_argument("--batch", type=int, default=32, help="sequences per step (default: 32)")
    shape.add_argument("--seq", type=int, default=128, help="time steps (default: 128)")
    shape.add_argument("--dim", type=int, default=256, help="input size (default: 256)")
    shape.add_argument("--hidden", type=int, default=512, help="hidden size (default: 512)")
    args = parser.parse_args()

    def build(torch, dtype, device, compile_fn):
        nn = torch.nn

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.lstm = nn.LSTM(args.dim, args.hidden, num_layers=2, batch_first=True)
                self.head = nn.Linear(args.hidden, args.dim)

            def forward(self, x):
                y, _ = self.lstm(x)
                return self.head(y)

        model = Model().to(device).train()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
        forward = compile_fn(model)
        x = torch.randn(args.batch, args.seq, args.dim, device=device)
        return mse_train_step(torch, forward, opt, dtype), (x,)

    capture(args, base="lstm_train", annotation="train_step", build=build, compiles_inside=True)


if __name__ == "__main__":
    main()
