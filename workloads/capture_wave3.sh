#!/usr/bin/env bash
# Capture the fourth set (wave 3): the kinds issues 37 and 40 read: BERT (eager, reduce-overhead,
# with torch's execution trace), Llama with GQA, Mixtral-style MoE (transformers', a per-expert
# loop, torch._grouped_mm), ResNet-18 in NCHW and channels_last, flex_attention, SDPA with an
# additive float mask, GPT-2 inference eager and with CUDA graphs, activation checkpointing, a
# graph break, GradScaler, and execution traces beside a CNN, a transformer and a compiled step.
# Same contract as capture_beyond.sh:
#   bash workloads/capture_wave3.sh OUTDIR [NAME ...]     (no NAME: all of them)
# BUDGET_S (default: none) skips the captures that would start after that many seconds;
# TIMEOUT_S (default: none) stops one capture that runs longer.
set -u
out=${1:?usage: capture_wave3.sh OUTDIR [NAME ...]}
shift
# name | script and flags (the order they run in: the ones issues 37 and 40 lean on most first)
captures=(
  "bert_train|bert_train.py"
  "bert_train_compile_ro|bert_train.py --compile --compile-mode reduce-overhead --warmup 3"
  "bert_train_et|bert_train.py --execution-trace"
  "cnn_train_et|cnn_train.py --execution-trace --name cnn_train_et"
  "gpt2_train_et|gpt2_train.py --layers 2 --execution-trace --name gpt2_train_et"
  "mlp_train_compile_et|mlp_train.py --compile --execution-trace"
  "gpt2_train_ckpt|gpt2_train.py --layers 4 --checkpointing --with-stack --name gpt2_train_ckpt"
  "graph_break|graph_break.py --compile --name graph_break"
  "gradscaler_train|gpt2_train.py --layers 2 --dtype fp16 --grad-scaler --name gradscaler_train"
  "gpt2_infer|gpt2_infer.py"
  "gpt2_infer_compile_cg|gpt2_infer.py --compile --compile-mode reduce-overhead --warmup 3 --name gpt2_infer_compile_cg"
  "flex_attention|attention.py --backend flex --name flex_attention"
  "attention_float_mask|attention.py --float-mask --name attention_float_mask"
  "resnet18_train|resnet18_train.py --name resnet18_train"
  "resnet18_train_cl|resnet18_train.py --channels-last --name resnet18_train_cl"
  "moe_train|moe_train.py"
  "moe_train_loop|moe_train.py --experts loop"
  "moe_train_grouped|moe_train.py --experts grouped"
  "llama_gqa_train|llama_train.py --name llama_gqa_train"
)
# (the loop: _capture_set.sh, shared with the other sets)
source "$(dirname "$0")/_capture_set.sh"
run_captures "$out" "$@"
exit "$failed"
