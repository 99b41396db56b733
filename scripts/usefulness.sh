#!/usr/bin/env bash
# `make usefulness` (issue 44): CodeScore trained on CoNaLa's human usefulness grades, fold by fold,
# next to every baseline and the study's own scores (docs/usefulness.md).
#   1. build data/conala from ${SHARED:-../shared/data}/conala_usefulness (2,360 graded snippets)
#   2. write the 5 outer folds' train / inner-dev / test rows (configs/experiment/usefulness.yaml)
#   3. train every arm of the pre-registered protocol on every outer fold (inner dev picks the epoch)
#   4. the rule picks the arm on the inner dev folds; its fold models score their test folds
#      -> outputs/usefulness/scores.jsonl
#   5. evaluate.py label=usefulness: every baseline, the study's stored scores, those scores (and the
#      PassRatio-trained checkpoint's zero-shot columns when ZS_CKPT / runs/zeroshot_cpu/best exists)
#   6. outputs/usefulness/report.{md,json}
# Every stage resumes: a finished (arm, fold) run is kept (outputs/usefulness/folds/<k>/<arm>/
# inner_dev.json); a changed data/conala starts the folds afresh.
#   LEVERS=1 make usefulness                # every arm of the protocol + the rule (the levers run)
#   USEFULNESS_FINETUNE=1 make usefulness   # also arm E (the encoder fine-tuned; ~+20 min)
#   ZS_CKPT=DIR make usefulness             # the PassRatio-trained checkpoint (zero-shot columns, arm P)
#   ICE_BASE_URL=http://host/v1 ICE_MODEL=NAME make usefulness   # + an ICE-Score usefulness column
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
SHARED=${SHARED:-../shared/data}
DATA=${DATA:-data/conala}
OUT=${OUT:-outputs/usefulness}
export HF_HUB_OFFLINE=${HF_HUB_OFFLINE:-1} HF_DATASETS_OFFLINE=${HF_DATASETS_OFFLINE:-1}
export WANDB_MODE=${WANDB_MODE:-offline} TOKENIZERS_PARALLELISM=false

if [[ ! -f "$SHARED/conala_usefulness/conala-all-grades.json" ]]; then
  echo "error: make usefulness reads CoNaLa's human grades from $SHARED/conala_usefulness/conala-all-grades.json," >&2
  echo "       which is missing; set SHARED=DIR to the shelf folder holding conala_usefulness/" >&2
  exit 2
fi

start=$(date +%s)
declare -A seconds
STAGE=usefulness
rebuilt=()
# stamp, timed
source scripts/lib/stages.sh

stamp "1/6 building $DATA"
timed build "$PY" -m data_builders build conala --source "$SHARED/conala_usefulness" --out "$DATA"
sha=$(sha256sum "$DATA/test.jsonl" | cut -d' ' -f1)
mkdir -p "$OUT"
if [[ -f "$OUT/data.sha256" && "$(cat "$OUT/data.sha256")" != "$sha" ]]; then
  stamp "  $DATA changed since the last run: starting the folds afresh"; rm -rf -- "$OUT/folds"
fi
echo "$sha" > "$OUT/data.sha256"
stamp "2/6 folds"
timed folds "$PY" scripts/usefulness.py folds --data "$DATA" --out "$OUT"
stamp "3/6 training every arm on every outer fold"
timed train "$PY" scripts/usefulness.py train --data "$DATA" --out "$OUT"
stamp "4/6 the arm rule (inner dev) and the chosen arm's test-fold scores"
timed choose "$PY" scripts/usefulness.py choose --data "$DATA" --out "$OUT"
timed score "$PY" scripts/usefulness.py score --data "$DATA" --out "$OUT"
stamp "5/6 evaluate.py label=usefulness with every baseline"
timed evaluate "$PY" scripts/usefulness.py evaluate --data "$DATA" --out "$OUT"
stamp "6/6 report"
timed report "$PY" scripts/usefulness.py report --data "$DATA" --out "$OUT"
for key in build folds train choose score evaluate report; do printf '  %-9s %5ss\n' "$key" "${seconds[$key]}"; done
stamp "done in $(( $(date +%s) - start ))s: $OUT/report.md"
