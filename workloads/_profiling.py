"""What every workload shares: the command line, and a capture made the article's way.

The article's profiler settings: `schedule(wait=1, warmup=1, active=3)` (so the trace holds
`ProfilerStep#2..4`), `record_shapes=True`, one `record_function` around each forward,
`torch.cuda.synchronize()` after each iteration, `prof.step()`; warm-up (and, with
`--compile`, compilation) happens before the profiler starts, so no compile time lands in the
trace. Beside each trace goes torch's own view of the same run, the oracle that kinetoscope's
tests compare against: `key_averages` and every profiler event with the kernels torch
attributed to it (the format of the H200 captures in test/fixtures/traces/). With
`--execution-trace`, torch's execution trace of the same profiled steps goes beside them too.

torch is imported only once a capture starts: `--help` works on a machine without torch.
"""
from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import shlex
import shutil
import sys
import time
from typing import Any, Callable

DTYPES = ("bf16", "fp16", "fp32")
COMPILE_MODES = ("default", "max-autotune", "reduce-overhead")
# the file-stem suffix of each mode, as the shared captures name them (tiny_ops_compile_ro)
MODE_SUFFIX = {"default": "", "max-autotune": "_ma", "reduce-overhead": "_ro"}

PROFILING_NOTES = """\
profiling (the article's settings):
  torch.profiler over 2 + ACTIVE iterations with schedule(wait=1, warmup=1, active=ACTIVE),
  record_shapes=True, one record_function per forward, torch.cuda.synchronize() and
  prof.step() after each iteration; WARMUP untimed iterations (and compilation) first.

writes, in OUT:
  NAME.pt.trace.json.gz   the trace (export_chrome_trace, gzipped): read it with kinetoscope
  NAME.oracle.json.gz     torch's key_averages and every event with the kernels torch
                          attributed to it (what kinetoscope's tests compare against)
  NAME.table.txt          torch's printed key_averages().table(), also printed here
  NAME.et.json.gz         with --execution-trace: torch's execution trace of the same profiled
                          steps (every op's input and output tensor ids, shapes and types; its
                          nodes' rf_id equal the trace's 'Record function id')
"""


def make_parser(prog: str, description: str, examples: str) -> argparse.ArgumentParser:
    """An argparse parser with the options every workload takes; the script adds its shapes."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description=description,
        epilog=PROFILING_NOTES + "\nexamples:\n" + examples,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run = parser.add_argument_group("run")
    run.add_argument("--compile", action="store_true", help="run the forward under torch.compile (Inductor)")
    run.add_argument(
        "--compile-mode",
        choices=COMPILE_MODES,
        default="default",
        help="torch.compile's mode with --compile: default, max-autotune (Triton template GEMMs "
        "tried against cuBLAS) or reduce-overhead (CUDA graphs) (default: default)",
    )
    run.add_argument("--dtype", choices=DTYPES, default="bf16", help="parameter and input dtype (default: bf16)")
    run.add_argument(
        "--no-grad",
        action="store_true",
        help="run (and compile) under torch.no_grad(): a compiled graph built with grad enabled "
        "saves tensors for a backward that inference never runs",
    )
    run.add_argument("--device", default="cuda", help="torch device (default: cuda; cpu profiles the host side only)")
    run.add_argument("--seed", type=int, default=0, help="torch.manual_seed (default: 0)")
    prof = parser.add_argument_group("profiler")
    prof.add_argument("--out", default="traces", metavar="DIR", help="output folder (default: ./traces)")
    prof.add_argument(
        "--name",
        help="file stem of the outputs (default: from the workload, e.g. linear_compile, "
        "with _nograd / _fp16 / _fp32 added when those are asked for)",
    )
    prof.add_argument("--warmup", type=int, default=3, metavar="N", help="untimed iterations before profiling (default: 3)")
    prof.add_argument("--active", type=int, default=3, metavar="N", help="profiled steps, schedule's active (default: 3)")
    prof.add_argument("--profile-memory", action="store_true",
                      help="profile_memory=True: [memory] events, and torch's memory columns in the oracle")
    prof.add_argument("--with-stack", action="store_true",
                      help="with_stack=True: python frames (and nn.Module frames) in the trace")
    prof.add_argument("--activities", choices=("cpu,cuda", "cuda", "cpu"), default="cpu,cuda", metavar="LIST",
                      help="the profiler's activities: cpu,cuda (default); cuda alone (kernels, copies and the "
                      "runtime/driver calls that launched them, no cpu_op and no annotation); or cpu alone")
    prof.add_argument("--with-flops", action="store_true", help="with_flops=True: torch's FLOP estimates in args")
    prof.add_argument("--execution-trace", action="store_true",
                      help="also record torch's execution trace (torch.profiler.ExecutionTraceObserver) over the "
                      "same profiled steps, as NAME.et.json.gz: each op's input and output tensor ids, shapes "
                      "and types, matched to the trace's ops by rf_id = 'Record function id' (adds _et to the "
                      "default name)")
    return parser


def default_stem(base: str, args: argparse.Namespace) -> str:
    """linear, linear_compile, geglu_mlp_compile_nograd, linear_fp32 ... (the shared set's names)."""
    if args.name:
        return args.name
    stem = base + ("_compile" + MODE_SUFFIX[args.compile_mode] if args.compile else "")
    stem += "_nograd" if args.no_grad else ""
    stem += "" if args.dtype == "bf16" else "_" + args.dtype
    stem += "_et" if getattr(args, "execution_trace", False) else ""
    return stem


def mse_train_step(torch: Any, forward: Callable[..., Any], opt: Any, dtype: Any, *, cuda_graphs: bool = False) -> Callable[..., Any]:
    """One training step on the output's mean square: the forward under autocast in `dtype` (off
    for fp32), backward, the optimizer's step, gradients dropped. `cuda_graphs`: mark the step's
    start first, as `torch.compile(mode="reduce-overhead")` asks of a training loop."""

    def step(x: Any) -> Any:
        if cuda_graphs:
            torch.compiler.cudagraph_mark_step_begin()
        with torch.autocast("cuda", dtype=dtype, enabled=dtype != torch.float32):
            loss = forward(x).float().pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss.detach()

    return step


def torch_dtype(torch: Any, name: str) -> Any:
    return {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[name]


def oracle(prof: Any, workload: str, annotation: str) -> dict[str, Any]:
    """torch's own view of the run: key_averages and every event with its attributed kernels."""
    key_averages = [
        dict(
            key=e.key,
            count=e.count,
            cpu_time_total_us=e.cpu_time_total,
            self_cpu_time_total_us=e.self_cpu_time_total,
            device_time_total_us=getattr(e, "device_time_total", None),
            self_device_time_total_us=getattr(e, "self_device_time_total", None),
            device_type=str(e.device_type),
            # bytes; 0 unless the run had profile_memory=True (torch >= 2.4 says device_, older cuda_)
            cpu_memory_usage=getattr(e, "cpu_memory_usage", None),
            self_cpu_memory_usage=getattr(e, "self_cpu_memory_usage", None),
            device_memory_usage=getattr(e, "device_memory_usage", getattr(e, "cuda_memory_usage", None)),
            self_device_memory_usage=getattr(e, "self_device_memory_usage", getattr(e, "self_cuda_memory_usage", None)),
        )
        for e in prof.key_averages()
    ]
    events = []
    for e in prof.events():
        events.append(
            dict(
                id=e.id,
                name=e.name,
                thread=e.thread,
                device_type=str(e.device_type),
                start_us=e.time_range.start,
                end_us=e.time_range.end,
                parent=e.cpu_parent.id if e.cpu_parent is not None else None,
                self_cpu_us=e.self_cpu_time_total,
                cpu_total_us=e.cpu_time_total,
                device_total_us=getattr(e, "device_time_total", None),
                self_device_us=getattr(e, "self_device_time_total", None),
                input_shapes=e.input_shapes,
                kernels=[dict(name=k.name, device=k.device, duration_us=k.duration) for k in e.kernels],
                flops=getattr(e, "flops", None),
            )
        )
    return dict(workload=workload, annotation=annotation, key_averages=key_averages, events=events)


def _gzip_to(path: str, data: bytes) -> None:
    # mtime=0: the same bytes give the same file, so a re-capture diffs only where the run differs
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as gz:
        gz.write(data)


def save_rank(prof: Any, trace_json: str, stem: str, workload: str, annotation: str) -> None:
    """One rank's outputs beside each other (ranks.py, distributed.py): STEM.pt.trace.json.gz
    (the trace export_chrome_trace wrote to `trace_json`, gzipped), STEM.oracle.json.gz and STEM.table.txt."""
    with open(trace_json, "rb") as f:
        _gzip_to(stem + ".pt.trace.json.gz", f.read())
    os.remove(trace_json)
    _gzip_to(stem + ".oracle.json.gz", json.dumps(oracle(prof, workload, annotation)).encode("utf-8"))
    with open(stem + ".table.txt", "w") as f:
        f.write(prof.key_averages().table(sort_by="device_time_total", row_limit=40))


def versions(torch: Any) -> str:
    parts = [f"torch {torch.__version__}"]
    if torch.version.cuda:
        parts.append(f"CUDA {torch.version.cuda}")
    if torch.cuda.is_available():
        parts.append(torch.cuda.get_device_name(0))
    return ", ".join(parts)


def capture(
    args: argparse.Namespace,
    *,
    base: str,
    annotation: str,
    build: Callable[..., tuple[Callable[..., Any], tuple[Any, ...]]],
    compiles_inside: bool = False,
) -> str:
    """Build the workload, warm it up, profile it the article's way, write trace + oracle + table.

    `build(torch, dtype, device)` returns (forward, inputs); `--compile` compiles the forward.
    With `compiles_inside` (a training step: the model is compiled, not the optimizer's step),
    `build(torch, dtype, device, compile)` gets the compile function (identity without
    `--compile`) and applies it where it belongs. Returns the trace's path.
    """
    import torch
    from torch.profiler import ProfilerActivity, profile, record_function, schedule

    if args.active < 1 or args.warmup < 0:
        sys.exit("--active must be at least 1 and --warmup at least 0")
    on_cuda = args.device.startswith("cuda")
    if on_cuda and not torch.cuda.is_available():
        sys.exit("no CUDA device: this workload profiles GPU kernels (--device cpu profiles the host side only)")
    stem = default_stem(base, args)
    os.makedirs(args.out, exist_ok=True)
    trace_json = os.path.join(args.out, f"{stem}.pt.trace.json")
    trace_path = trace_json + ".gz"
    oracle_path = os.path.join(args.out, f"{stem}.oracle.json.gz")
    table_path = os.path.join(args.out, f"{stem}.table.txt")
    et_json = os.path.join(args.out, f"{stem}.et.json")

    def sync() -> None:
        if on_cuda:
            torch.cuda.synchronize()

    print(f"{stem}: {versions(torch)}; dtype {args.dtype}" + (f", compiled ({args.compile_mode})" if args.compile else "")
          + (", no_grad" if args.no_grad else ", grad enabled"), flush=True)
    torch.manual_seed(args.seed)
    wanted = args.activities.split(",")
    activities = ([ProfilerActivity.CPU] if "cpu" in wanted else []) + ([ProfilerActivity.CUDA] if on_cuda and "cuda" in wanted else [])
    def compile_fn(fn: Callable[..., Any]) -> Callable[..., Any]:
        return torch.compile(fn, mode=args.compile_mode) if args.compile else fn

    with torch.no_grad() if args.no_grad else contextlib.nullcontext():
        if compiles_inside:
            forward, inputs = build(torch, torch_dtype(torch, args.dtype), args.device, compile_fn)
        else:
            forward, inputs = build(torch, torch_dtype(torch, args.dtype), args.device)
            forward = compile_fn(forward)
        t0 = time.perf_counter()
        for _ in range(args.warmup):  # compilation, cuBLAS handles, autotuning: outside the trace
            forward(*inputs)
        sync()
        print(f"warm-up: {args.warmup} iterations in {time.perf_counter() - t0:.1f} s", flush=True)
        # The observer starts and stops with the profiler's recording (the schedule's active
        # steps), so the two files cover the same steps; registering it makes every
        # record_function carry an id (the trace's 'Record function id', 0 without it).
        et = None
        if args.execution_trace:
            from torch.profiler import ExecutionTraceObserver
            et = ExecutionTraceObserver().register_callback(et_json)
        with profile(
            activities=activities,
            schedule=schedule(wait=1, warmup=1, active=args.active, repeat=1),
            on_trace_ready=lambda p: p.export_chrome_trace(trace_json),
            record_shapes=True,
            profile_memory=args.profile_memory,
            with_stack=args.with_stack,
            with_flops=args.with_flops,
            execution_trace_observer=et,
        ) as prof:
            for _ in range(args.active + 2):
                with record_function(annotation):
                    forward(*inputs)
                sync()
                prof.step()

    with open(trace_json, "rb") as f:
        _gzip_to(trace_path, f.read())
    os.remove(trace_json)
    _gzip_to(oracle_path, json.dumps(oracle(prof, stem, annotation)).encode("utf-8"))
    sort_by = "device_time_total" if on_cuda else "cpu_time_total"
    table = prof.key_averages().table(sort_by=sort_by, row_limit=40)
    with open(table_path, "w") as f:
        f.write(table)
    if et is not None:
        et.unregister_callback()  # (profile's exit already did: this is a no-op then) the file is complete
        with open(et_json, "rb") as f:
            _gzip_to(et_json + ".gz", f.read())
        os.remove(et_json)
        # the observer copies Inductor's generated kernel sources beside the file: not part of the capture
        shutil.rmtree(os.path.join(args.out, f"{stem}.et_resources"), ignore_errors=True)
    print(table)
    print(f"trace:   {trace_path}")
    print(f"oracle:  {oracle_path}  (torch's key_averages and per-event kernels)")
    print(f"table:   {table_path}")
    if et is not None:
        print(f"et:      {et_json}.gz  (torch's execution trace of the same steps)")
    print(f"read it: npx kinetoscope summary {shlex.quote(trace_path)}")
    return trace_path
