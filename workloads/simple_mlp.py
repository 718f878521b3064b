#!/usr/bin/env python3
"""An MLP forward, profiled (the seed's 03_simple_mlp.py and the article's GeGLU block).

--mlp relu   the seed's MLP: Linear(dim, hidden) ReLU Linear(hidden, hidden) ReLU
             Linear(hidden, dim), all biased: three GEMMs with bias epilogues, two ReLU kernels.
--mlp geglu  the article's feed-forward block, no bias: gate_proj and up_proj (dim -> hidden),
             gelu(gate, approximate="tanh") * up, down_proj (hidden -> dim): three GEMMs and,
             eager, a GeLU and a mul kernel that torch.compile fuses into one Triton kernel.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _profiling import capture, make_parser  # noqa: E402  (no torch imported yet)

EXAMPLES = """\
  python3 workloads/simple_mlp.py                           # the seed's ReLU MLP, eager
  python3 workloads/simple_mlp.py --mlp geglu --compile     # GeGLU, GeLU*mul fused by Inductor
  python3 workloads/simple_mlp.py --mlp relu --compile --no-grad   # no backward mask kept
"""


def relu_mlp(torch, dim, hidden):
    nn = torch.nn

    class SimpleMLP(nn.Module):  # the seed's MLP, as the article writes it
        def __init__(self, in_dim, hidden_dim, out_dim):
            super().__init__()
            self.fc1 = nn.Linear(in_dim, hidden_dim)
            self.relu = nn.ReLU()
            self.fc2 = nn.Linear(hidden_dim, hidden_dim)
            self.relu2 = nn.ReLU()
            self.fc3 = nn.Linear(hidden_dim, out_dim)

        def forward(self, x):
            x = self.fc1(x)
            x = self.relu(x)
            x = self.fc2(x)
            x = self.relu2(x)
            x = self.fc3(x)
            return x

    return SimpleMLP(dim, hidden, dim)


def geglu_mlp_class(torch):
    nn, F = torch.nn, torch.nn.functional

    class GeGLUMLP(nn.Module):  # the original article's feed-forward block
        def __init__(self, dim, hidden):
            super().__init__()
            self.gate_proj = nn.Linear(dim, hidden, bias=False)
            self.up_proj = nn.Linear(dim, hidden, bias=False)
            self.down_proj = nn.Linear(hidden, dim, bias=False)

        def forward(self, x):
            return self.down_proj(F.gelu(self.gate_proj(x), approximate="tanh") * self.up_proj(x))

    return GeGLUMLP


def geglu_mlp(torch, dim, hidden):
    return geglu_mlp_class(torch)(dim, hidden)


def add_shape_args(parser):
    shape = parser.add_argument_group("shape (input batch x seq x dim)")
    shape.add_argument("--batch", type=int, default=64, help="batch (default: 64)")
    shape.add_argument("--seq", type=int, default=128, help="sequence length (default: 128)")
    shape.add_argument("--dim", type=int, default=768, help="model dimension, in and out (default: 768)")
    shape.add_argument("--hidden", type=int, default=3072, help="hidden dimension (default: 3072)")


def main() -> None:
    parser = make_parser("simple_mlp.py", __doc__.strip(), EXAMPLES)
    parser.add_argument_group("model").add_argument("--mlp", choices=("relu", "geglu"), default="relu",
                        help="relu: the seed's biased ReLU MLP; geglu: the article's bias-free GeGLU block (default: relu)")
    add_shape_args(parser)
    args = parser.parse_args()

    def build(torch, dtype, device):
        make = relu_mlp if args.mlp == "relu" else geglu_mlp
        model = make(torch, args.dim, args.hidden).to(device, dtype=dtype).eval()
        x = torch.randn(args.batch, args.seq, args.dim, device=device, dtype=dtype)
        return model, (x,)

    capture(args, base=f"{args.mlp}_mlp", annotation="mlp_fwd", build=build)


if __name__ == "__main__":
    main()
