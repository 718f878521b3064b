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
# name | script and flags
captures=(
  "scaled_mm|scaled_mm.py"
  "cnn_train|cnn_train.py --name cnn_train"
  "attention|attention.py"
  "attention_compile|attention.py --compile"
  "cnn_train_compile|cnn_train.py --compile --name cnn_train_compile"
  "gpt2_train_mem|gpt2_train.py --profile-memory --with-stack --name gpt2_train_mem"
  "mlp_train|mlp_train.py"
  "mlp_train_compile_ro|mlp_train.py --compile --compile-mode reduce-overhead"
  "attention_gqa_flash|attention.py --kv-heads 4 --backend flash --name attention_gqa_flash"
  "attention_efficient|attention.py --backend efficient --name attention_efficient"
  "relu_mlp_compile_ma_nograd|simple_mlp.py --mlp relu --compile --compile-mode max-autotune --no-grad"
  "gpt2_train_compile|gpt2_train.py --compile"
)
# (the loop: _capture_set.sh, shared with the other set)
source "$(dirname "$0")/_capture_set.sh"
run_captures "$out" "$@"
exit "$failed"
