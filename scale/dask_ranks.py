#!/usr/bin/env python3
"""kinetoscope ranks on a Dask cluster: the per-rank work where the traces are, the reduce here.

    python3 scale/dask_ranks.py --scheduler tcp://HOST:8786 JOB_DIR [--export PARQUET_DIR]
                                [--kinetoscope CMD] [--json] [--rank-regex RE] [--clock MODE] ...

1. List JOB_DIR's rank traces (on a worker: the folder is where the workers read it), by the rule
   of ``kinetoscope ranks DIR`` (src/cli/commands/ranks.ts ``listRankFiles``).
2. Map: one task per trace, on the workers. Each runs the worker's own installed kinetoscope as a
   subprocess, ``kinetoscope ranks --partial OUT TRACE``, into a temporary folder of the worker,
   and returns the partial's bytes (a few kB to a few hundred kB: the rank's steps, collective
   calls and overlap totals). Only these bytes travel; the traces are read where they are.
3. Reduce: the partials are written to a folder here (a temporary one, or --partials DIR to keep
   them) and ``kinetoscope ranks PARTIALS_DIR`` runs here; its document (text, or --json) is printed
   as it prints it: byte for byte what ``kinetoscope ranks JOB_DIR`` prints on one machine, with
   JOB_DIR as an absolute path (the document names each rank's trace by the path the worker read).
4. --export PARQUET_DIR (a folder every worker can write, e.g. on the shared file system): once the
   reduce has told every rank apart, one more task per trace, ``kinetoscope export TRACE --parquet
   PARQUET_DIR``: PARQUET_DIR/rank-R/*.parquet, as ``kinetoscope export JOB_DIR`` writes them.

A task that fails (kinetoscope's exit status is not 0, or the task raised: its worker died more
often than the scheduler's allowed failures) is reported on stderr with its trace and tried once
more; a trace that fails twice is named and the driver exits with status 2 after the other tasks
end. A worker that dies mid-task is the scheduler's to handle: it runs the task again on another.
Progress goes to stderr (--quiet: none). Exit status: the reduce's (0, or 1 under --strict when the
job has warnings), 2 for bad arguments or a trace that failed twice.

Depends only on ``distributed`` (Debian: python3-distributed); the workers need kinetoscope and
read access to JOB_DIR. docs/ranks.md ("On a cluster") says how to start them, under Slurm too.
"""
import argparse
import logging
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import uuid

# listRankFiles (src/cli/commands/ranks.ts): a folder's *.pt.trace.json[.gz] files, else its
# *.json[.gz] files; torch's *.oracle.json[.gz] never.
TRACE_FILE = re.compile(r"\.pt\.trace\.json(?:\.gz)?$")
JSON_FILE = re.compile(r"\.json(?:\.gz)?$")
ORACLE_FILE = re.compile(r"\.oracle\.json(?:\.gz)?$")

PROG = "dask_ranks"


def natural_key(name):
    """rank-2 before rank-10 (the order only sets the order of the tasks: the reduce does not depend on it)."""
    return [int(p) if p.isdigit() else p.lower() for p in re.split(r"(\d+)", name)]


# ---------------------------------------------------------------------------------------------
# Run on the workers (sent by value: they are defined in __main__).


def list_rank_files(job_dir):
    """The rank traces of job_dir, as the worker sees it: (path, bytes) pairs."""
    names = [n for n in os.listdir(job_dir) if JSON_FILE.search(n) and not ORACLE_FILE.search(n) and os.path.isfile(os.path.join(job_dir, n))]
    if any(TRACE_FILE.search(n) for n in names):
        names = [n for n in names if TRACE_FILE.search(n)]
    names.sort(key=natural_key)
    return [(os.path.join(job_dir, n), os.path.getsize(os.path.join(job_dir, n))) for n in names]


def _worker_address():
    try:
        from distributed import get_worker

        return get_worker().address
    except Exception:  # not on a worker (a local run)
        return "?"


def _last_line(text):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1] if lines else ""


def run_partial(cmd, trace):
    """kinetoscope ranks --partial on one trace, on this worker: the partial's bytes, or why not."""
    out = {"trace": trace, "worker": _worker_address(), "traceBytes": os.path.getsize(trace) if os.path.exists(trace) else None}
    with tempfile.TemporaryDirectory(prefix="kinetoscope-partial-") as tmp:
        path = os.path.join(tmp, "partial.json")
        p = subprocess.run(cmd + ["ranks", "--partial", path, trace], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out["status"] = p.returncode
        out["error"] = _last_line(p.stderr.decode("utf-8", "replace"))
        if p.returncode == 0:
            with open(path, "rb") as f:
                out["partial"] = f.read()
    return out


def run_export(cmd, trace, parquet_dir, rank_regex):
    """kinetoscope export of one trace into parquet_dir/rank-R/, on this worker."""
    extra = ["--rank-regex", rank_regex] if rank_regex is not None else []
    p = subprocess.run(cmd + ["export", trace, "--parquet", parquet_dir, "--json"] + extra, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = {"trace": trace, "worker": _worker_address(), "status": p.returncode, "error": _last_line(p.stderr.decode("utf-8", "replace"))}
    if p.returncode == 0:
        import json

        out["ranks"] = [r["rank"] for r in json.loads(p.stdout.decode("utf-8"))["ranks"]]
    return out


# ---------------------------------------------------------------------------------------------
# The driver.


class Progress:
    def __init__(self, quiet):
        self.quiet = quiet

    def say(self, text):
        if not self.quiet:
            sys.stderr.write(f"{PROG}: {text}\n")
            sys.stderr.flush()


def fail(text, status=2):
    sys.stderr.write(f"{PROG}: {text}\n")
    sys.exit(status)


def map_traces(client, fn, args_of, traces, what, progress):
    """Runs fn(*args_of(trace)) once per trace, a failed one once more; {trace: result}, [failed traces]."""
    from distributed import as_completed

    done = {}
    failed = []
    attempt = {}
    futures = {}
    index = {t: i for i, t in enumerate(traces)}
    # keys name the task in the scheduler's logs; the run's own id keeps two drivers on one cluster apart
    run = uuid.uuid4().hex[:12]

    def submit(t):
        return client.submit(fn, *args_of(t), pure=False, key=f"kinetoscope-{what}-{run}-{index[t]}-attempt-{attempt[t]}")

    for t in traces:
        attempt[t] = 1
        futures[submit(t)] = t
    queue = as_completed(list(futures))
    n = len(traces)
    for fut in queue:
        t = futures.pop(fut)
        try:
            res = fut.result()
            why = None if res["status"] == 0 else f"exit status {res['status']} on {res['worker']}: {res['error'] or 'no message'}"
        except Exception as e:  # the task raised, or its workers kept dying (KilledWorker)
            res = None
            why = f"{type(e).__name__}: {_last_line(str(e)) or 'no message'}"
        if why is None:
            done[t] = res
            progress.say(f"[{len(done)}/{n}] {what} {t} on {res['worker']}" + (f" ({len(res['partial'])} bytes; trace {res['traceBytes']} bytes)" if "partial" in res else ""))
            continue
        if attempt[t] == 1:
            attempt[t] = 2
            progress.say(f"{what} of rank trace {t} failed ({why}); trying it once more")
            retry = submit(t)
            futures[retry] = t
            queue.add(retry)
        else:
            failed.append((t, why))
            sys.stderr.write(f"{PROG}: {what} of rank trace {t} failed twice ({why})\n")
    return done, failed


def main(argv=None):
    ap = argparse.ArgumentParser(prog="dask_ranks.py", description="kinetoscope ranks over a job's rank traces on a Dask cluster: the map (ranks --partial, export) on the workers, the reduce here.")
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--scheduler", metavar="ADDRESS", help="the scheduler, e.g. tcp://HOST:8786")
    where.add_argument("--scheduler-file", metavar="FILE", help="the scheduler's file (dask scheduler --scheduler-file FILE)")
    ap.add_argument("job_dir", metavar="JOB_DIR", help="the folder of rank traces, as the workers see it (a relative path is made absolute here)")
    ap.add_argument("--export", metavar="PARQUET_DIR", help="also export every rank to PARQUET_DIR/rank-R/*.parquet (a folder the workers can write)")
    ap.add_argument("--kinetoscope", metavar="CMD", default="kinetoscope", help="the kinetoscope command on the workers and here (default: kinetoscope; e.g. 'node /opt/kinetoscope/dist/bin/kinetoscope.js')")
    ap.add_argument("--partials", metavar="DIR", help="keep the partials in DIR (default: a temporary folder, removed); kinetoscope ranks DIR reads them again")
    ap.add_argument("--workers", metavar="N", type=int, default=1, help="wait until N workers are connected before the map (default 1)")
    ap.add_argument("--quiet", action="store_true", help="no progress on stderr")
    reduce_opts = ap.add_argument_group("passed to kinetoscope ranks (the reduce)")
    reduce_opts.add_argument("--json", action="store_true", help="the JSON document (schema/ranks.schema.json)")
    reduce_opts.add_argument("--rank-regex", metavar="RE", help="the rank in a trace's path (also given to export)")
    reduce_opts.add_argument("--clock", choices=["trace", "collectives"], help="trace: clocks as written; collectives: aligned by collective ends")
    reduce_opts.add_argument("--top", metavar="N", help="rows per table in the text view")
    reduce_opts.add_argument("--strict", action="store_true", help="exit 1 when the job has warnings")
    reduce_opts.add_argument("--verbose", action="store_true", help="also the informational diagnostics")
    reduce_opts.add_argument("--wide", action="store_true", help="do not cut long names")
    a = ap.parse_args(argv)

    try:
        from distributed import Client
    except ImportError:
        fail("needs Dask's distributed package (Debian: apt-get install python3-distributed; pip: distributed)")
    # Dask 2022.12's client can leave a timed-out future behind when it closes on a busy machine, and
    # asyncio then prints "Future exception was never retrieved" at exit: noise after the work is
    # done, not a failure of it (this driver's own lines say what failed)
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)

    cmd = shlex.split(a.kinetoscope)
    if not cmd:
        fail("--kinetoscope is empty")
    job_dir = os.path.abspath(a.job_dir)
    parquet_dir = os.path.abspath(a.export) if a.export else None
    # (checked before the map: the reduce reads every partial in the folder, so it holds this job's only)
    if a.partials is not None and os.path.isdir(a.partials) and os.listdir(a.partials):
        fail(f"--partials {a.partials}: not empty; give a new or empty folder (the reduce reads every partial in it)")
    progress = Progress(a.quiet)
    reduce_args = []
    if a.json:
        reduce_args.append("--json")
    for flag, value in (("--rank-regex", a.rank_regex), ("--clock", a.clock), ("--top", a.top)):
        if value is not None:
            reduce_args += [flag, value]
    for flag, on in (("--strict", a.strict), ("--verbose", a.verbose), ("--wide", a.wide)):
        if on:
            reduce_args.append(flag)

    try:
        client = Client(scheduler_file=a.scheduler_file) if a.scheduler_file else Client(a.scheduler)
    except (OSError, ValueError) as e:
        fail(f"cannot reach the scheduler {a.scheduler or a.scheduler_file}: {_last_line(str(e)) or type(e).__name__}")
    try:
        if a.workers > 1:
            progress.say(f"waiting for {a.workers} workers")
            client.wait_for_workers(a.workers)
        workers = len(client.scheduler_info()["workers"])
        try:
            listed = client.submit(list_rank_files, job_dir, pure=False).result()
        except FileNotFoundError:
            fail(f"{job_dir}: no such folder on the workers")
        except NotADirectoryError:
            fail(f"{job_dir}: not a folder")
        except OSError as e:
            fail(f"{job_dir}: cannot list it on the workers ({e.strerror or type(e).__name__})")
        if not listed:
            fail(f"{job_dir}: no trace files (*.json, *.json.gz) in this folder")
        traces = [t for t, _ in listed]
        read_bytes = sum(b for _, b in listed)
        progress.say(f"{len(traces)} rank traces in {job_dir} ({read_bytes} bytes) on {workers} workers of {client.scheduler.address}")

        # map: the partials
        done, failed = map_traces(client, run_partial, lambda t: (cmd, t), traces, "partial", progress)
        if failed:
            fail(f"{len(failed)} rank trace(s) failed twice, no document: " + ", ".join(t for t, _ in failed))
        travelled = sum(len(r["partial"]) for r in done.values())
        progress.say(f"partials: {travelled} bytes travelled for {read_bytes} bytes of traces read on the workers ({100 * travelled / read_bytes:.2f}%)" if read_bytes else f"partials: {travelled} bytes")

        # reduce, here
        keep = a.partials is not None
        pdir = os.path.abspath(a.partials) if keep else tempfile.mkdtemp(prefix="kinetoscope-partials-")
        try:
            os.makedirs(pdir, exist_ok=True)
            for t in traces:
                # each written beside and renamed: a partial is whole or absent
                path = os.path.join(pdir, os.path.basename(t) + ".partial.json")
                with open(path + ".tmp", "wb") as f:
                    f.write(done[t]["partial"])
                os.replace(path + ".tmp", path)
            red = subprocess.run(cmd + ["ranks", pdir] + reduce_args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        finally:
            if not keep:
                shutil.rmtree(pdir, ignore_errors=True)
        sys.stderr.write(red.stderr.decode("utf-8", "replace"))
        if red.returncode not in (0, 1):
            fail(f"the reduce (kinetoscope ranks over the partials) exited with status {red.returncode}", red.returncode)

        # map: the Parquet folders, once the ranks are told apart
        if parquet_dir is not None:
            exported, failed = map_traces(client, run_export, lambda t: (cmd, t, parquet_dir, a.rank_regex), traces, "export", progress)
            if failed:
                fail(f"{len(failed)} rank trace(s) failed twice to export, no document: " + ", ".join(t for t, _ in failed))
            progress.say(f"exported {len(exported)} ranks to {parquet_dir}/rank-R/")

        sys.stdout.buffer.write(red.stdout)
        sys.stdout.flush()
        return red.returncode
    finally:
        client.close()


if __name__ == "__main__":
    sys.exit(main())
