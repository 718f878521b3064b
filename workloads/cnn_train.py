#!/usr/bin/env python3
"""A small CNN training step, profiled: convolutions, batch norm, ReLU, a linear head.

Conv(3->C, 3x3) BN ReLU, Conv(C->2C, 3x3, stride 2) BN ReLU, Conv(2C->2C, 3x3) BN ReLU, global
average pool, Linear(2C -> 10); cross-entropy, backward, SGD with momentum. Parameters in fp32,
the step under autocast in --dtype (default fp16, with a GradScaler as fp16 training uses).
What the trace shows: cuDNN/CUTLASS implicit-GEMM convolution kernels for the forward (fprop),
the input gradient (dgrad) and the weight gradient (wgrad), cuDNN batch-norm kernels, layout
kernels; compiled, Inductor's fused BN/ReLU kernels around the same convolutions.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _profiling import capture, make_parser  # noqa: E402  (no torch imported yet)

EXAMPLES = """\
  python3 workloads/cnn_train.py                       # eager, fp16 autocast
  python3 workloads/cnn_train.py --compile             # the model under torch.compile
  python3 workloads/cnn_train.py --batch 128 --size 32 --channels 32
"""


def main() -> None:
    parser = make_parser("cnn_train.py", __doc__.strip(), EXAMPLES)
    parser.set_defaults(dtype="fp16")
    shape = parser.add_argument_group("shape (images batch x 3 x size x size)")
    shape.add_argument("--batch", type=int, default=64, help="images per step (default: 64)")
    shape.add_argument("--size", type=int, default=64, help="image height and width (default: 64)")
    shape.add_argument("--channels", type=int, default=64, help="channels of the first convolution (default: 64)")
    args = parser.parse_args()

    def build(torch, dtype, device, compile_fn):
        nn = torch.nn
        c = args.channels

        def block(cin, cout, stride):
            return [nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]

        model = nn.Sequential(
            *block(3, c, 1), *block(c, 2 * c, 2), *block(2 * c, 2 * c, 1),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2 * c, 10),
        ).to(device).train()
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        scaler = torch.amp.GradScaler("cuda", enabled=dtype == torch.float16)
        forward = compile_fn(model)
        x = torch.randn(args.batch, 3, args.size, args.size, device=device)
        y = torch.randint(0, 10, (args.batch,), device=device)
        ro = args.compile and args.compile_mode == "reduce-overhead"

        def step(x, y):
            if ro:
                torch.compiler.cudagraph_mark_step_begin()
            with torch.autocast("cuda", dtype=dtype, enabled=dtype != torch.float32):
                loss = nn.functional.cross_entropy(forward(x), y)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            opt.zero_grad(set_to_none=True)
            return loss.detach()

        return step, (x, y)

    capture(args, base="cnn_train", annotation="train_step", build=build, compiles_inside=True)


if __name__ == "__main__":
    main()
