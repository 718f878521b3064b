#!/usr/bin/env python3
"""A torchvision ResNet-18 training step (random weights), profiled.

torchvision.models.resnet18(weights=None) on batch x 3 x size x size images, cross-entropy over
1000 classes, SGD with momentum; parameters in fp32, the step under autocast in --dtype (default
fp16, with a GradScaler as fp16 training uses). Memory format NCHW, torch's default; with
--channels-last the model and the images are channels_last (NHWC in memory), which cuDNN's
tensor-core convolutions want. What the trace shows: cuDNN convolution kernels (fprop, dgrad,
wgrad), batch-norm kernels and, in NCHW, the layout conversions around them; the channels_last
run is the control in which those conversions should be absent.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _profiling import capture, make_parser  # noqa: E402  (no torch imported yet)

EXAMPLES = """\
  python3 workloads/resnet18_train.py --name resnet18_train                          # NCHW, fp16
  python3 workloads/resnet18_train.py --channels-last --name resnet18_train_cl       # channels_last
"""


def main() -> None:
    parser = make_parser("resnet18_train.py", __doc__.strip(), EXAMPLES)
    parser.set_defaults(dtype="fp16")
    shape = parser.add_argument_group("shape (images batch x 3 x size x size)")
    shape.add_argument("--batch", type=int, default=32, help="images per step (default: 32)")
    shape.add_argument("--size", type=int, default=224, help="image height and width (default: 224)")
    shape.add_argument("--channels-last", action="store_true",
                       help="model and images in channels_last memory format (default: NCHW)")
    args = parser.parse_args()

    def build(torch, dtype, device, compile_fn):
        import torchvision

        fmt = torch.channels_last if args.channels_last else torch.contiguous_format
        model = torchvision.models.resnet18(weights=None).to(device).to(memory_format=fmt).train()
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        scaler = torch.amp.GradScaler("cuda", enabled=dtype == torch.float16)
        forward = compile_fn(model)
        x = torch.randn(args.batch, 3, args.size, args.size, device=device).to(memory_format=fmt)
        y = torch.randint(0, 1000, (args.batch,), device=device)

        def step(x, y):
            with torch.autocast("cuda", dtype=dtype, enabled=dtype != torch.float32):
                loss = torch.nn.functional.cross_entropy(forward(x), y)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            opt.zero_grad(set_to_none=True)
            return loss.detach()

        return step, (x, y)

    base = "resnet18_train" + ("_cl" if args.channels_last else "")
    capture(args, base=base, annotation="train_step", build=build, compiles_inside=True)


if __name__ == "__main__":
    main()
