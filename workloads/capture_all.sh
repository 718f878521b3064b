#!/usr/bin/env bash
# Capture every workload of the walkthrough into one folder (the set in
# test/fixtures/traces/h200-workloads/), and the versions they ran on.
#   bash workloads/capture_all.sh OUTDIR
# One failing capture does not stop the rest; the exit status counts the failures.
set -u
out=${1:?usage: capture_all.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
mkdir -p "$out"
{
  "$py" -c 'import torch, triton; print("torch", torch.__version__); print("cuda", torch.version.cuda); print("triton", triton.__version__); print("gpu", torch.cuda.get_device_name(0))'
  nvidia-smi --query-gpu=driver_version,name --format=csv
} > "$out/versions.txt" 2>&1
cat "$out/versions.txt"
failed=0
run() {
  echo "=== $*"
  "$py" "$here/$1" "${@:2}" --out "$out" || { echo "FAILED: $*"; failed=$((failed + 1)); }
}
run matmul_add.py
run matmul_add.py --compile
run linear.py
run linear.py --compile
run simple_mlp.py --mlp relu
run simple_mlp.py --mlp relu --compile
run simple_mlp.py --mlp relu --compile --no-grad
run simple_mlp.py --mlp geglu
run simple_mlp.py --mlp geglu --compile
run simple_mlp.py --mlp geglu --compile --no-grad
run kernels_mlp.py
run kernels_mlp.py --compile
echo "$failed capture(s) failed"
exit "$failed"
