#!/usr/bin/env python3
"""Data-parallel GPT-2 training over NCCL, one GPU per rank, one trace per rank (launch with torchrun).

--strategy ddp   DistributedDataParallel: gradients all-reduced in buckets while the backward runs
--strategy fsdp  FSDP2 (`fully_shard` on every transformer block and the root): parameters
                 all-gathered before each block's forward and backward, gradients reduce-scattered

A small GPT-2 (transformers, random weights: --layers layers of width 768, 12 heads), batch x seq
token ids per rank, bf16 autocast, AdamW. Every rank profiles the same steps:
schedule(wait=1, warmup=1, active=ACTIVE), record_shapes, profile_memory, one
record_function("train_step") per iteration, torch.cuda.synchronize() and prof.step() after each.
The process group is initialised before profiling, so torch fills the trace's distributedInfo.

NVLink multicast stays off (NCCL_NVLS_ENABLE=0, TORCH_SYMM_MEM_DISABLE_MULTICAST=1,
NVSHMEM_DISABLE_NVLS=1): the machines this was written for require it.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

# before torch or NCCL start: multicast off, whatever the caller's environment says
os.environ["NCCL_NVLS_ENABLE"] = "0"
os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"
os.environ["NVSHMEM_DISABLE_NVLS"] = "1"

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _profiling import save_rank, versions  # noqa: E402  (no torch imported yet)

EXAMPLES = """\
writes, in OUT/distributed_STRATEGY_wN/ (one folder per run):
  rank-R.pt.trace.json.gz   rank R's trace (distributedInfo.rank = R)
  rank-R.oracle.json.gz     torch's key_averages and events of rank R (workloads/_profiling.py)
  rank-R.table.txt          torch's printed key_averages().table() of rank R

examples:
  torchrun --nproc_per_node=2 workloads/distributed.py --strategy ddp
  torchrun --nproc_per_node=2 workloads/distributed.py --strategy fsdp
  npx kinetoscope ranks traces/distributed_ddp_w2
"""


def main() -> None:
    parser = argparse.ArgumentParser(prog="distributed.py", description=__doc__.strip(), epilog=EXAMPLES,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--strategy", choices=("ddp", "fsdp"), default="ddp", help="ddp or fsdp (FSDP2) (default: ddp)")
    parser.add_argument("--layers", type=int, default=4, help="transformer layers (default: 4)")
    parser.add_argument("--batch", type=int, default=8, help="sequences per rank (default: 8)")
    parser.add_argument("--seq", type=int, default=512, help="tokens per sequence (default: 512)")
    parser.add_argument("--warmup", type=int, default=3, metavar="N", help="untimed steps before profiling (default: 3)")
    parser.add_argument("--active", type=int, default=3, metavar="N", help="profiled steps, schedule's active (default: 3)")
    parser.add_argument("--seed", type=int, default=0, help="torch.manual_seed (default: 0)")
    parser.add_argument("--out", default="traces", metavar="DIR", help="output folder (default: ./traces)")
    parser.add_argument("--name", help="run folder name (default: distributed_STRATEGY_wN)")
    args = parser.parse_args()

    import torch
    import torch.distributed as dist
    from torch.profiler import ProfilerActivity, profile, record_function, schedule
    from transformers import GPT2Config, GPT2LMHeadModel

    if "RANK" not in os.environ:
        sys.exit("launch with torchrun, e.g. torchrun --nproc_per_node=2 workloads/distributed.py")
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
    rank, world = dist.get_rank(), dist.get_world_size()
    device = torch.device("cuda", local_rank)

    torch.manual_seed(args.seed)  # the same initial weights on every rank
    cfg = GPT2Config(n_layer=args.layers, n_embd=768, n_head=12, n_positions=max(1024, args.seq))
    model = GPT2LMHeadModel(cfg).to(device).train()
    if args.strategy == "ddp":
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local_rank])
    else:
        from torch.distributed.fsdp import fully_shard

        for block in model.transformer.h:
            fully_shard(block)
        fully_shard(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    torch.manual_seed(args.seed + 1 + rank)  # each rank its own shard of data
    ids = torch.randint(0, cfg.vocab_size, (args.batch, args.seq), device=device)

    def step() -> None:
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    print(f"rank {rank}/{world}: {versions(torch)}; nccl; {args.strategy}", flush=True)
    for _ in range(args.warmup):
        step()
    torch.cuda.synchronize()
    dist.barrier()

    out_dir = os.path.join(args.out, args.name or f"distributed_{args.strategy}_w{world}")
    os.makedirs(out_dir, exist_ok=True)
    stem = os.path.join(out_dir, f"rank-{rank}")
    trace_json = stem + ".pt.trace.json"
    t0 = time.perf_counter()
    with profile(
        activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
        schedule=schedule(wait=1, warmup=1, active=args.active, repeat=1),
        on_trace_ready=lambda p: p.export_chrome_trace(trace_json),
        record_shapes=True,
        profile_memory=True,
    ) as prof:
        for _ in range(args.active + 2):
            with record_function("train_step"):
                step()
            torch.cuda.synchronize()
            prof.step()
    save_rank(prof, trace_json, stem, os.path.basename(out_dir) + f"/rank-{rank}", "train_step")
    dist.barrier()
    dist.destroy_process_group()
    print(f"rank {rank}: {stem}.pt.trace.json.gz ({time.perf_counter() - t0:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
