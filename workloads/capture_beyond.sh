#!/usr/bin/env bash
# Capture the workloads beyond the article (the set in test/fixtures/traces/h200-torch2.11/ that
# issue 16 and 20 added): convolutions, attention, max-autotune, fp8, CUDA graphs, GPT-2 with
# memory. One failing capture does not stop the rest; the exit status counts the failures.
#   bash workloads/capture_beyond.sh OUTDIR [NAME ...]     (no NAME: all of them)
# BUDGET_S (default: none) skips the captures that would start after that many seconds;
# TIMEOUT_S (default: none) stops one capture that runs longer.
set -u
out=${1:?usage: capture_beyond.sh OUTDIR [NAME ...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
mkdir -p "$out"
{
  "$py" -c 'import torch, triton; print("torch", torch.__version__); print("cuda", torch.version.cuda); print("triton", triton.__version__); print("gpu", torch.cuda.get_device_name(0))'
  nvidia-smi --query-gpu=driver_version,name --format=csv
} > "$out/versions.txt" 2>&1
cat "$out/versions.txt"
# name | script and flags
captures=(
  "scaled_mm|scaled_mm.py"
  "cnn_train|cnn_train.py"
  "attention|attention.py"
  "attention_compile|attention.py --compile"
  "cnn_train_compile|cnn_train.py --compile"
  "gpt2_train_mem|gpt2_train.py --profile-memory --with-stack --name gpt2_train_mem"
  "mlp_train|mlp_train.py"
  "mlp_train_compile_ro|mlp_train.py --compile --compile-mode reduce-overhead"
  "attention_gqa_flash|attention.py --kv-heads 4 --backend flash --name attention_gqa_flash"
  "attention_efficient|attention.py --backend efficient --name attention_efficient"
  "relu_mlp_compile_ma_nograd|simple_mlp.py --mlp relu --compile --compile-mode max-autotune --no-grad"
  "gpt2_train_compile|gpt2_train.py --compile"
)
failed=0
for entry in "${captures[@]}"; do
  name=${entry%%|*}
  cmd=${entry#*|}
  if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then continue; fi
  if [ -n "${BUDGET_S:-}" ] && [ "$SECONDS" -ge "$BUDGET_S" ]; then echo "SKIPPED (budget): $name"; continue; fi
  echo "=== $name: $cmd"
  read -ra parts <<< "$cmd"
  ${TIMEOUT_S:+timeout "$TIMEOUT_S"} "$py" "$here/${parts[0]}" "${parts[@]:1}" --out "$out" > "$out/$name.log" 2>&1
  tail -n 4 "$out/$name.log"
  if [ -f "$out/$name.pt.trace.json.gz" ]; then echo "OK $name ($SECONDS s)"; else echo "FAILED: $name"; failed=$((failed + 1)); fi
done
echo "$failed capture(s) failed"
exit "$failed"
