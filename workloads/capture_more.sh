#!/usr/bin/env bash
# Capture the workloads of a third set, kinds the earlier sets lack: LLM decoding with a KV cache,
# an LSTM with fused AdamW, a DataLoader with workers, a CPU-only trace, a CUDA-only trace and
# fp32 GEMMs. Same contract as capture_beyond.sh:
#   bash workloads/capture_more.sh OUTDIR [NAME ...]     (no NAME: all of them)
set -u
out=${1:?usage: capture_more.sh OUTDIR [NAME ...]}
shift
captures=(
  "llm_decode|llm_decode.py"
  "lstm_train|lstm_train.py"
  "dataloader_train|dataloader_train.py"
  "linear_cpu|linear.py --device cpu --dtype fp32 --name linear_cpu"
  "mlp_train_cuda_only|mlp_train.py --activities cuda --name mlp_train_cuda_only"
  "relu_mlp_fp32|simple_mlp.py --mlp relu --dtype fp32"
  "llm_decode_compile|llm_decode.py --compile --name llm_decode_compile"
)
# (the loop: _capture_set.sh, shared with the other set)
source "$(dirname "$0")/_capture_set.sh"
run_captures "$out" "$@"
exit "$failed"
