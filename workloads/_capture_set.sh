# Sourced by capture_beyond.sh and capture_more.sh: `run_captures OUTDIR [NAME ...]` writes
# OUTDIR/versions.txt, then runs each entry of the caller's `captures` array ("NAME|SCRIPT FLAGS")
# whose NAME was given (all of them when none was), each into OUTDIR with its log beside it. One
# failing capture does not stop the rest; `failed` is left holding how many failed.
# BUDGET_S (default: none) skips the captures that would start after that many seconds;
# TIMEOUT_S (default: none) stops one capture that runs longer.
run_captures() {
  local out=$1
  shift
  local here py entry name cmd
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  py=${PYTHON:-python3}
  mkdir -p "$out"
  {
    "$py" -c 'import torch, triton; print("torch", torch.__version__); print("cuda", torch.version.cuda); print("triton", triton.__version__); print("gpu", torch.cuda.get_device_name(0))'
    "$py" -c 'import transformers; print("transformers", transformers.__version__)' 2>/dev/null
    nvidia-smi --query-gpu=driver_version,name --format=csv
  } > "$out/versions.txt" 2>&1
  cat "$out/versions.txt"
  failed=0
  for entry in "${captures[@]}"; do
    name=${entry%%|*}
    cmd=${entry#*|}
    if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then continue; fi
    if [ -n "${BUDGET_S:-}" ] && [ "$SECONDS" -ge "$BUDGET_S" ]; then echo "SKIPPED (budget): $name"; continue; fi
    echo "=== $name: $cmd"
    local parts
    read -ra parts <<< "$cmd"
    ${TIMEOUT_S:+timeout "$TIMEOUT_S"} "$py" "$here/${parts[0]}" "${parts[@]:1}" --out "$out" > "$out/$name.log" 2>&1
    tail -n 4 "$out/$name.log"
    if [ -f "$out/$name.pt.trace.json.gz" ]; then echo "OK $name ($SECONDS s)"; else echo "FAILED: $name"; failed=$((failed + 1)); fi
  done
  echo "$failed capture(s) failed"
}
