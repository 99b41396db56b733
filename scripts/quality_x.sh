#!/usr/bin/env bash
# `make quality-x` (issue 29): one CodeScore for six languages, judged on HumanEval problems it never saw.
#   1. build HE-Eval-X in C++, Java, JavaScript, Go and Rust (each task's canonical solution + 3 one-edit
#      mutants, labelled against HumanEval-X's tests and HE-Eval's translated extended tests) and HE-Eval in
#      Python (CodeGen-16B's real samples), all with the fixed split: tasks 82-163 test, 0-81 train/dev
#   2. train +experiment=multilingual_cpu (those folders' train splits + the real MBPP generations)
#      -> runs/multilingual/best
#   3. evaluate it on the test problems of every language next to every baseline that supports the
#      language -> outputs/quality_x/<language>/, and one summary outputs/quality_x/report.{md,json}
# Every stage resumes, as in `make quality`: finished builds are skipped, a build made with other settings
# is rebuilt, the training continues from runs/multilingual/last.
#
#   QX_LANGUAGES="cpp js" bash scripts/quality_x.sh   # a subset of the five compiled/JS languages
#   QX_MUTANTS=3 QX_PY_PER_TASK=20 QX_WORKERS=2       # the defaults
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
SHARED=${SHARED:-../shared/data}
RUN_DIR=${RUN_DIR:-runs/multilingual}
OUT=${OUT:-outputs/quality_x}
# default: every HumanEval-X language of the language table (data_builders/languages.py)
LANGUAGES=(${QX_LANGUAGES:-$("$PY" -c 'from data_builders.languages import HUMANEVAL_X; print(*HUMANEVAL_X)')})
MUTANTS=${QX_MUTANTS:-3}
PY_PER_TASK=${QX_PY_PER_TASK:-20}
WORKERS=${QX_WORKERS:-2}
HELD_OUT=(--held-out-from 82 --split-ratios 0.8,0.2,0 --seed 20240101)  # = configs/build/humaneval-x.yaml
export HF_HUB_OFFLINE=${HF_HUB_OFFLINE:-1} HF_DATASETS_OFFLINE=${HF_DATASETS_OFFLINE:-1}
export WANDB_MODE=${WANDB_MODE:-offline} TOKENIZERS_PARALLELISM=false

needed=("$SHARED/humaneval_codegen16b_samples.jsonl" "$SHARED/mbpp_sanitized_humaneval_format.jsonl"
        "$SHARED/mbpp_generations.jsonl")
for language in "${LANGUAGES[@]}"; do needed+=("$SHARED/humaneval_x/humaneval_$language.jsonl.gz"); done
# stamp, timed, build, require_shelf
source scripts/lib/stages.sh
require_shelf "make quality-x reads HumanEval-X and real generations" "make quality-x" "${needed[@]}"

start=$(date +%s)
declare -A seconds
STAGE=quality-x

rebuilt=()
stamp "1/3 building datasets (${LANGUAGES[*]} python)"
mkdir -p data/samples
for language in "${LANGUAGES[@]}"; do
  problems="$SHARED/humaneval_x/humaneval_$language.jsonl.gz"
  canonical="data/samples/humaneval_x_${language}_canonical.jsonl"
  # each task's canonical solution as a candidate (a passing program beside its mutants)
  [[ -f "$canonical" ]] || "$PY" benchmarks/make_multilingual_programs.py --problems-file "$problems" \
    --language "$language" --mutants 0 --out-samples "$canonical"
  timed "build_$language" build "data/he-eval-x-$language" humaneval-x --language "$language" \
    --problems-file "$problems" --samples "$canonical" --mutants "$MUTANTS" --workers "$WORKERS"
done
timed build_python build data/he-eval-x-python humaneval \
  --samples "$SHARED/humaneval_codegen16b_samples.jsonl" --samples-per-task "$PY_PER_TASK" "${HELD_OUT[@]}"
timed build_mbpp_real build data/mbpp-real mbpp --source "$SHARED/mbpp_sanitized_humaneval_format.jsonl" \
  --samples "$SHARED/mbpp_generations.jsonl"

if ((${#rebuilt[@]})) && [[ -d "$RUN_DIR" ]]; then  # never resume a run on other training data
  stamp "  training data was rebuilt: starting $RUN_DIR afresh"; rm -rf -- "$RUN_DIR"
fi
dirs=$(printf 'data/he-eval-x-%s,' "${LANGUAGES[@]}")
ones=$(printf '1.0,%.0s' "${LANGUAGES[@]}")
stamp "2/3 training +experiment=multilingual_cpu in $RUN_DIR"
timed train "$PY" train.py +experiment=multilingual_cpu output_dir="$RUN_DIR" \
  "data.dirs=[${dirs}data/he-eval-x-python,data/mbpp-real]" "data.weights=[${ones}1.0,1.0]" \
  "data.dev_dirs=[${dirs}data/he-eval-x-python]"

stamp "3/3 evaluating on the test problems (HumanEval 82-163) of every language"
evaluated=()
for language in "${LANGUAGES[@]}" python; do
  timed "eval_$language" "$PY" evaluate.py ckpt_path="$RUN_DIR/best" data="data/he-eval-x-$language" \
    split=test output_dir="$OUT/$language"
  evaluated+=("$language=$OUT/$language")
done

timings=$(for key in "${!seconds[@]}"; do printf '%s=%s ' "$key" "${seconds[$key]}"; done)
"$PY" scripts/quality_x_report.py --out "$OUT" --checkpoint "$RUN_DIR/best" \
  --total-seconds $(( $(date +%s) - start )) --evaluations "${evaluated[@]}" --timings $timings
stamp "done: $OUT/report.md"
