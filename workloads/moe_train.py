#!/usr/bin/env python3
"""A Mixtral-style mixture-of-experts training step, profiled.

Each of --layers decoder layers: RMSNorm, causal SDPA attention (--heads query, --kv-heads
key/value heads), RMSNorm, then a mixture of --num-experts SwiGLU experts (dim -> --hidden ->
dim) of which a router picks the top --top-k per token, the outputs weighted by the router's
renormalised probabilities; an LM head and cross-entropy; the forward under autocast in --dtype
(default bf16), backward, AdamW. --experts picks the implementation:

  hf       transformers' MixtralForCausalLM built from a small MixtralConfig (random weights, nothing
           downloaded): its own expert dispatch, whatever the installed transformers does
  loop     a hand-written model: per expert, torch.where over the routing (a device-to-host sync),
           gather its tokens, three GEMMs, index_add_ back: the reference loop
  grouped  the same hand-written model with the experts' GEMMs as torch._grouped_mm over tokens
           sorted by expert (one grouped GEMM per projection for all experts; bf16 operands;
           the tokens per expert counted on the GPU, no host sync)

What the trace shows: the router's softmax/topk, per-expert token gathers and scatters, and
either many small per-expert GEMMs (loop, hf) or a few grouped GEMM kernels (grouped).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _profiling import capture, make_parser  # noqa: E402  (no torch imported yet)

EXAMPLES = """\
  python3 workloads/moe_train.py                       # transformers' Mixtral, 8 experts, top-2
  python3 workloads/moe_train.py --experts grouped     # torch._grouped_mm experts (moe_train_grouped)
  python3 workloads/moe_train.py --experts loop        # the per-expert loop on the same model
"""

IMPLS = ("hf", "loop", "grouped")


def grouped_mm(torch):
    """torch._grouped_mm(a [M, K], b [E, K, N], offs) with a backward: torch's own where it has
    one, else a Function whose backward is two more grouped GEMMs (dgrad and wgrad)."""

    class GroupedMM(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, offs):
            ctx.save_for_backward(a, b, offs)
            return torch._grouped_mm(a, b, offs=offs)

        @staticmethod
        def backward(ctx, g):
            a, b, offs = ctx.saved_tensors
            ga = torch._grouped_mm(g, b.transpose(-2, -1), offs=offs)
            gb = torch._grouped_mm(a.t(), g, offs=offs)
            return ga, gb, None

    a = torch.randn(48, 64, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    b = torch.randn(2, 32, 64, device="cuda", dtype=torch.bfloat16).transpose(-2, -1).requires_grad_()
    offs = torch.tensor([16, 48], device="cuda", dtype=torch.int32)
    try:
        torch._grouped_mm(a, b, offs=offs).sum().backward()
        print("torch._grouped_mm: torch's own backward", flush=True)
        return lambda x, w, o: torch._grouped_mm(x, w, offs=o)
    except RuntimeError as e:
        print(f"torch._grouped_mm has no backward here ({str(e).splitlines()[0]}): a Function of grouped GEMMs", flush=True)
        return GroupedMM.apply


def main() -> None:
    parser = make_parser("moe_train.py", __doc__.strip(), EXAMPLES)
    model_args = parser.add_argument_group("model")
    model_args.add_argument("--experts", choices=IMPLS, default="hf",
                            help="hf: transformers' Mixtral; loop: per-expert loop; grouped: torch._grouped_mm "
                            "(default: hf; the name gets _loop or _grouped)")
    shape = parser.add_argument_group("shape")
    shape.add_argument("--layers", type=int, default=2, help="decoder layers (default: 2)")
    shape.add_argument("--dim", type=int, default=512, help="hidden size (default: 512)")
    shape.add_argument("--hidden", type=int, default=1024, help="each expert's hidden size (default: 1024)")
    shape.add_argument("--heads", type=int, default=8, help="query heads (default: 8)")
    shape.add_argument("--kv-heads", type=int, default=2, help="key/value heads (default: 2)")
    shape.add_argument("--num-experts", type=int, default=8, help="experts per layer (default: 8)")
    shape.add_argument("--top-k", type=int, default=2, help="experts per token (default: 2)")
    shape.add_argument("--vocab", type=int, default=8192, help="vocabulary (default: 8192)")
    shape.add_argument("--batch", type=int, default=8, help="sequences per step (default: 8)")
    shape.add_argument("--seq", type=int, default=512, help="tokens per sequence (default: 512)")
    args = parser.parse_args()
    if args.heads % args.kv_heads or args.dim % args.heads:
        parser.error("--dim must be a multiple of --heads, and --heads of --kv-heads")
    if not 1 <= args.top_k <= args.num_experts:
        parser.error("--top-k must be between 1 and --num-experts")

    def build_hf(torch, device):
        from transformers import MixtralConfig, MixtralForCausalLM

        cfg = MixtralConfig(
            hidden_size=args.dim,
            intermediate_size=args.hidden,
            num_hidden_layers=args.layers,
            num_attention_heads=args.heads,
            num_key_value_heads=args.kv_heads,
            num_local_experts=args.num_experts,
            num_experts_per_tok=args.top_k,
            vocab_size=args.vocab,
            max_position_embeddings=max(2048, args.seq),
            attn_implementation="sdpa",
        )
        model = MixtralForCausalLM(cfg).to(device).train()
        print(f"attention implementation: {model.config._attn_implementation}", flush=True)
        return lambda ids: model(input_ids=ids, labels=ids).loss, model

    def build_hand(torch, device):
        nn, F = torch.nn, torch.nn.functional
        d, f, e_n, k = args.dim, args.hidden, args.num_experts, args.top_k
        h_q, h_kv = args.heads, args.kv_heads
        hd = d // h_q
        gmm = grouped_mm(torch) if args.experts == "grouped" else None

        class MoE(nn.Module):
            def __init__(self):
                super().__init__()
                self.router = nn.Linear(d, e_n, bias=False)
                self.w1 = nn.Parameter(torch.randn(e_n, f, d) * d ** -0.5)  # gate, [E, F, D] as nn.Linear keeps it
                self.w3 = nn.Parameter(torch.randn(e_n, f, d) * d ** -0.5)  # up
                self.w2 = nn.Parameter(torch.randn(e_n, d, f) * f ** -0.5)  # down

            def forward(self, x):  # x [T, D]
                probs = self.router(x).float().softmax(-1)
                weight, expert = probs.topk(k, dim=-1)  # [T, k]
                weight = weight / weight.sum(-1, keepdim=True)
                out = torch.zeros(x.shape, device=x.device, dtype=torch.float32)
                if gmm is None:
                    for e in range(e_n):
                        token, slot = torch.where(expert == e)  # nonzero: the host waits for the routing
                        h = x[token]
                        y = F.linear(F.silu(F.linear(h, self.w1[e])) * F.linear(h, self.w3[e]), self.w2[e])
                        out.index_add_(0, token, y.float() * weight[token, slot, None])
                    return out
                flat = expert.reshape(-1)  # [T*k], token-major
                order = flat.argsort(stable=True)
                token = order // k
                # tokens per expert without a host sync (bincount's output size would need one)
                counts = torch.histc(flat.float(), bins=e_n, min=0, max=e_n - 1)
                offs = counts.cumsum(0).to(torch.int32)
                h = x[token].to(torch.bfloat16)
                w1, w3, w2 = (w.to(torch.bfloat16).transpose(-2, -1) for w in (self.w1, self.w3, self.w2))
                g = F.silu(gmm(h, w1, offs)) * gmm(h, w3, offs)
                y = gmm(g, w2, offs)
                return out.index_add_(0, token, y.float() * weight.reshape(-1)[order, None])

        class Layer(nn.Module):
            def __init__(self):
                super().__init__()
                self.norm1 = nn.RMSNorm(d)
                self.qkv = nn.Linear(d, d + 2 * h_kv * hd, bias=False)
                self.o = nn.Linear(d, d, bias=False)
                self.norm2 = nn.RMSNorm(d)
                self.moe = MoE()

            def forward(self, x):  # x [B, S, D]
                b, s, _ = x.shape
                q, kk, v = self.qkv(self.norm1(x)).split([d, h_kv * hd, h_kv * hd], dim=-1)
                q = q.view(b, s, h_q, hd).transpose(1, 2)
                kk = kk.view(b, s, h_kv, hd).transpose(1, 2)
                v = v.view(b, s, h_kv, hd).transpose(1, 2)
                a = F.scaled_dot_product_attention(q, kk, v, is_causal=True, enable_gqa=h_kv != h_q)
                x = x + self.o(a.transpose(1, 2).reshape(b, s, d))
                return x + self.moe(self.norm2(x).reshape(b * s, d)).view(b, s, d)

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.embed = nn.Embedding(args.vocab, d)
                self.layers = nn.ModuleList(Layer() for _ in range(args.layers))
                self.norm = nn.RMSNorm(d)
                self.head = nn.Linear(d, args.vocab, bias=False)

            def forward(self, ids):
                x = self.embed(ids)
                for layer in self.layers:
                    x = layer(x)
                logits = self.head(self.norm(x))
                return F.cross_entropy(logits.float().view(-1, args.vocab), ids.view(-1))

        model = Model().to(device).train()
        return model, model

    def build(torch, dtype, device, compile_fn):
        loss_fn, model = build_hf(torch, device) if args.experts == "hf" else build_hand(torch, device)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
        loss_fn = compile_fn(loss_fn)
        ids = torch.randint(0, args.vocab, (args.batch, args.seq), device=device)

        def step(ids):
            with torch.autocast("cuda", dtype=dtype, enabled=dtype != torch.float32):
                loss = loss_fn(ids)
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            return loss.detach()

        return step, (ids,)

    base = "moe_train" + ("" if args.experts == "hf" else "_" + args.experts)
    capture(args, base=base, annotation="train_step", build=build, compiles_inside=True)


if __name__ == "__main__":
    main()
