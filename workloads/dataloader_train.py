#!/usr/bin/env python3
"""A small CNN trained from a DataLoader with worker processes and pinned memory, profiled.

Each profiled step takes its batch from a torch.utils.data.DataLoader (--workers processes,
pin_memory=True, images made on the CPU by the dataset: a random tensor plus a normalisation, so
loading costs real CPU time), copies it to the GPU with non_blocking=True, and runs a
Conv-BN-ReLU stack, cross-entropy, backward and SGD with momentum. What the trace shows: the
DataLoader's `enumerate(DataLoader)#…__next__` inside the step, pinned host-to-device copies, and
whether the GPU waits for the data.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _profiling import capture, make_parser  # noqa: E402  (no torch imported yet)

EXAMPLES = """\
  python3 workloads/dataloader_train.py                 # 2 workers, batch 64 of 3x128x128
  python3 workloads/dataloader_train.py --workers 0     # loading on the training thread
"""


def main() -> None:
    parser = make_parser("dataloader_train.py", __doc__.strip(), EXAMPLES)
    shape = parser.add_argument_group("shape")
    shape.add_argument("--batch", type=int, default=64, help="images per step (default: 64)")
    shape.add_argument("--size", type=int, default=128, help="image side (default: 128)")
    shape.add_argument("--workers", type=int, default=2, help="DataLoader worker processes (default: 2)")
    args = parser.parse_args()

    def build(torch, dtype, device, compile_fn):
        nn = torch.nn

        class Images(torch.utils.data.Dataset):
            def __len__(self):
                return 1 << 20

            def __getitem__(self, i):
                g = torch.Generator().manual_seed(i)
                x = torch.rand(3, args.size, args.size, generator=g)
                x = (x - 0.5) / 0.25
                return x, i % 10

        loader = torch.utils.data.DataLoader(Images(), batch_size=args.batch, num_workers=args.workers,
                                             pin_memory=True, persistent_workers=args.workers > 0)
        batches = iter(loader)

        def block(cin, cout):
            return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(), nn.MaxPool2d(2)]

        model = nn.Sequential(*block(3, 32), *block(32, 64), *block(64, 128), nn.AdaptiveAvgPool2d(1),
                              nn.Flatten(), nn.Linear(128, 10)).to(device).train()
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        forward = compile_fn(model)

        def step():
            x, y = next(batches)
            x = x.to(device, non_blocking=True)
            y = y.to(device, non_blocking=True)
            with torch.autocast("cuda", dtype=dtype, enabled=dtype != torch.float32):
                loss = nn.functional.cross_entropy(forward(x).float(), y)
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            return loss.detach()

        return step, ()

    capture(args, base="dataloader_train", annotation="train_step", build=build, compiles_inside=True)


if __name__ == "__main__":
    main()
