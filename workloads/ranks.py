#!/usr/bin/env python3
"""Data-parallel training over gloo, N ranks sharing one GPU, one trace per rank.

NCCL refuses two ranks on one GPU ("Duplicate GPU detected"); gloo does not. This script spawns
--world-size processes (torch.multiprocessing.spawn), each one rank of a gloo process group on
cuda:0, trains a small MLP (--layers Linear(dim, dim) + ReLU) and all-reduces its gradients:
DistributedDataParallel over gloo (--mode ddp, the default: gradient buckets all-reduced while
the backward runs) or one dist.all_reduce per gradient after the backward (--mode explicit).
Each step also all-gathers the loss (a 1-element CPU tensor, as a training loop logs it).

--skew-ms S makes rank r sleep r*S ms on the host before its backward, so rank N-1 arrives last
at the gradient all-reduce and the others wait for it: stragglers that are real, of known size.

Every rank profiles the same steps: schedule(wait=1, warmup=1, active=ACTIVE), record_shapes,
one record_function("train_step") per iteration, torch.cuda.synchronize() and prof.step()
after each. The process group is initialised before profiling, so torch fills the trace's
distributedInfo (backend, rank, world_size).
"""
from __future__ import annotations

import argparse
import datetime
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _profiling import save_rank, versions  # noqa: E402  (no torch imported yet)

EXAMPLES = """\
writes, in OUT/ranks_wN[_skewS]/ (one folder per run):
  rank-R.pt.trace.json.gz   rank R's trace (distributedInfo.rank = R)
  rank-R.oracle.json.gz     torch's key_averages and events of rank R (workloads/_profiling.py)
  rank-R.table.txt          torch's printed key_averages().table() of rank R

examples:
  python3 workloads/ranks.py --world-size 2
  python3 workloads/ranks.py --world-size 4 --skew-ms 5
  python3 workloads/ranks.py --world-size 8 --skew-ms 2 --mode explicit
  npx kinetoscope ranks traces/ranks_w4_skew5
"""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_dir(args: argparse.Namespace) -> str:
    name = args.name or f"ranks_w{args.world_size}" + (f"_skew{args.skew_ms:g}" if args.skew_ms else "")
    name += "" if args.mode == "ddp" else "_explicit"
    return os.path.join(args.out, name)


def worker(rank: int, args: argparse.Namespace, out_dir: str) -> None:
    import torch
    import torch.distributed as dist
    from torch.profiler import ProfilerActivity, profile, record_function, schedule

    world = args.world_size
    torch.cuda.set_device(0)  # every rank on the one GPU: gloo allows it, NCCL does not
    dist.init_process_group(
        "gloo", rank=rank, world_size=world, timeout=datetime.timedelta(seconds=args.timeout_s)
    )
    device = torch.device("cuda", 0)
    dtype = {"bf16": torch.bfloat16, "fp32": torch.float32}[args.dtype]

    torch.manual_seed(args.seed)  # the same initial weights on every rank
    layers = []
    for _ in range(args.layers):
        layers += [torch.nn.Linear(args.dim, args.dim), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers).to(device=device, dtype=dtype)
    if args.mode == "ddp":
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=None, bucket_cap_mb=args.bucket_mb)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    torch.manual_seed(args.seed + 1 + rank)  # each rank its own shard of data
    x = torch.randn(args.batch, args.dim, device=device, dtype=dtype)
    target = torch.randn(args.batch, args.dim, device=device, dtype=dtype)
    gathered = [torch.zeros(1) for _ in range(world)]

    def train_step(skew: bool) -> None:
        optimizer.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(model(x), target)
        if skew and args.skew_ms > 0:
            torch.cuda.synchronize()  # the forward is done: the sleep delays this rank's backward
            time.sleep(rank * args.skew_ms / 1000.0)
        loss.backward()
        if args.mode == "explicit":
            for p in model.parameters():
                dist.all_reduce(p.grad)
                p.grad.div_(world)
        optimizer.step()
        dist.all_gather(gathered, loss.detach().float().cpu().reshape(1))

    print(f"rank {rank}/{world}: {versions(torch)}; gloo; {args.mode}; dtype {args.dtype}", flush=True)
    for _ in range(args.warmup):  # DDP's buckets, cuBLAS handles, gloo's pairs: outside the trace
        train_step(skew=False)
    torch.cuda.synchronize()
    dist.barrier()  # every rank enters the profiled window together

    stem = os.path.join(out_dir, f"rank-{rank}")
    trace_json = stem + ".pt.trace.json"
    with profile(
        activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
        schedule=schedule(wait=1, warmup=1, active=args.active, repeat=1),
        on_trace_ready=lambda p: p.export_chrome_trace(trace_json),
        record_shapes=True,
    ) as prof:
        for _ in range(args.active + 2):
            with record_function("train_step"):
                train_step(skew=True)
            torch.cuda.synchronize()
            prof.step()

    save_rank(prof, trace_json, stem, os.path.basename(out_dir) + f"/rank-{rank}", "train_step")
    dist.barrier()
    dist.destroy_process_group()
    print(f"rank {rank}: {stem}.pt.trace.json.gz", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="ranks.py",
        description=__doc__.strip(),
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--world-size", type=int, default=2, metavar="N", help="ranks to spawn (default: 2)")
    parser.add_argument("--skew-ms", type=float, default=0.0, metavar="S",
                        help="rank r sleeps r*S ms on the host before its backward (default: 0)")
    parser.add_argument("--mode", choices=("ddp", "explicit"), default="ddp",
                        help="ddp: DistributedDataParallel over gloo; explicit: dist.all_reduce per gradient "
                        "after the backward (default: ddp)")
    parser.add_argument("--bucket-mb", type=float, default=4.0,
                        help="DDP's bucket_cap_mb: several buckets, each all-reduced as the backward fills it (default: 4)")
    parser.add_argument("--dtype", choices=("fp32", "bf16"), default="fp32", help="parameters and data (default: fp32)")
    parser.add_argument("--layers", type=int, default=4, help="Linear+ReLU layers (default: 4)")
    parser.add_argument("--dim", type=int, default=1024, help="Linear width (default: 1024)")
    parser.add_argument("--batch", type=int, default=64, help="rows per rank (default: 64)")
    parser.add_argument("--warmup", type=int, default=3, metavar="N", help="untimed steps before profiling (default: 3)")
    parser.add_argument("--active", type=int, default=3, metavar="N", help="profiled steps, schedule's active (default: 3)")
    parser.add_argument("--seed", type=int, default=0, help="torch.manual_seed (default: 0)")
    parser.add_argument("--timeout-s", type=int, default=300, help="process group timeout (default: 300)")
    parser.add_argument("--out", default="traces", metavar="DIR", help="output folder (default: ./traces)")
    parser.add_argument("--name", help="run folder name (default: ranks_wN[_skewS][_explicit])")
    args = parser.parse_args()
    if args.world_size < 1 or args.active < 1 or args.warmup < 0:
        sys.exit("--world-size and --active must be at least 1, --warmup at least 0")

    import torch
    import torch.multiprocessing as mp

    if not torch.cuda.is_available():
        sys.exit("no CUDA device: every rank runs on cuda:0")
    out_dir = run_dir(args)
    os.makedirs(out_dir, exist_ok=True)
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(free_port())
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")  # loopback: the ranks share this host
    t0 = time.perf_counter()
    mp.spawn(worker, args=(args, out_dir), nprocs=args.world_size, join=True)
    print(f"{args.world_size} ranks in {time.perf_counter() - t0:.1f} s -> {out_dir}")
    print(f"read it: npx kinetoscope ranks {out_dir}")


if __name__ == "__main__":
    main()
