#!/usr/bin/env bash
# `make quality`: does CodeScore rank real programs of problems it never saw better than the baselines?
#   1. build the training data from ../shared (real MBPP generations; the real-APPS subset with WITH_APPS=1)
#      and the zero-shot sets (HE-Eval from CodeGen-16B samples, HumanEval programs of 39 other generators)
#   2. train +experiment=zeroshot_cpu (the offline MiniLM, CPU) -> runs/zeroshot_cpu/best
#   3. evaluate it zero-shot next to every baseline on the same rows -> outputs/quality/report.{md,json}
#   4. the paper's fine-tuned setting (issue 43 item 5): train +experiment=finetuned_cpu on the same
#      training data plus the CodeGen-16B samples of HumanEval problems 0-81 (data/he-eval-x-python,
#      quality_x.sh's build: tasks 82-163 test, 0-81 train/dev) -> runs/finetuned_cpu/best, and score
#      it on problems 82-163 only (the HE-Eval and 39-generator rows of those problems) next to every
#      baseline and the zero-shot model on the same rows -> outputs/quality/finetuned/, one report
# Every stage resumes: rerunning skips finished builds whose settings are unchanged, rebuilds the
# ones whose build manifest differs from what this script builds now (the extended-test cache is reused),
# continues the trainings from runs/zeroshot_cpu/last and runs/finetuned_cpu/last, and only re-evaluates.
#
#   FULL_HE=1 bash scripts/quality.sh     # HE-Eval with all 100 samples per problem (16,400 programs)
#   WITH_APPS=1 bash scripts/quality.sh   # add the real-APPS subset to the training mix (+20-30 min)
#   LIKELIHOODS=1 bash scripts/quality.sh # add SmolLM2's coder/reviewer likelihoods as reference-free
#                                         # baselines on HE-Eval (Coder-Reviewer reranking; ~30 min more)
#   FINETUNED=0 bash scripts/quality.sh   # the zero-shot setting only (stages 1-3)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
SHARED=${SHARED:-../shared/data}
if [[ "${WITH_APPS:-0}" == 1 ]]; then RUN_DIR=${RUN_DIR:-runs/zeroshot_cpu_apps}
  RUN_DIR_FT=${RUN_DIR_FT:-runs/finetuned_cpu_apps}; fi
RUN_DIR=${RUN_DIR:-runs/zeroshot_cpu}
RUN_DIR_FT=${RUN_DIR_FT:-runs/finetuned_cpu}
FINETUNED=${FINETUNED:-1}
FT_TASKS=82-163  # the fine-tuned setting's test problems (= --held-out-from 82 below)
# HumanEval with problems 82-163 test and 0-81 train/dev: quality_x.sh's Python build, the same
# arguments, so either script reuses the other's folder
HE_TRAIN=(--samples-per-task 20 --held-out-from 82 --split-ratios 0.8,0.2,0 --seed 20240101)
OUT=${OUT:-outputs/quality}
OUT_FT=$OUT/finetuned
HE_PER_TASK=${HE_PER_TASK:-20}
export HF_HUB_OFFLINE=${HF_HUB_OFFLINE:-1} HF_DATASETS_OFFLINE=${HF_DATASETS_OFFLINE:-1}
export WANDB_MODE=${WANDB_MODE:-offline} TOKENIZERS_PARALLELISM=false

needed=(
  "$SHARED/mbpp_sanitized_humaneval_format.jsonl"
  "$SHARED/mbpp_generations.jsonl"
  "$SHARED/humaneval_codegen16b_samples.jsonl"
  "$SHARED/humaneval_generations_multi.jsonl"
)
if [[ "${WITH_APPS:-0}" == 1 ]]; then
  needed+=("$SHARED/apps_subset/problems.jsonl" "$SHARED/apps_subset/samples.jsonl")
fi
# stamp, timed, build, require_shelf
source scripts/lib/stages.sh
require_shelf "make quality reads real generations" "make quality" "${needed[@]}"

if [[ "${FULL_HE:-0}" == 1 ]]; then HE_DIR=data/he-eval-full; per_task=(); else
  HE_DIR=data/he-eval-zs; per_task=(--samples-per-task "$HE_PER_TASK"); fi

start=$(date +%s)
declare -A seconds
STAGE=quality

rebuilt=()
stamp "1/4 building datasets"
MBPP=(mbpp --source "$SHARED/mbpp_sanitized_humaneval_format.jsonl")
timed build_mbpp_real build data/mbpp-real "${MBPP[@]}" --samples "$SHARED/mbpp_generations.jsonl"
train_data=()
if [[ "${WITH_APPS:-0}" == 1 ]]; then
  timed build_apps build data/apps-subset apps --source "$SHARED/apps_subset/problems.jsonl" \
    --samples "$SHARED/apps_subset/samples.jsonl" --reference-samples exclude
  train_data=(data=zeroshot_cpu_apps)
fi
timed build_he build "$HE_DIR" humaneval --samples "$SHARED/humaneval_codegen16b_samples.jsonl" \
  "${per_task[@]}" --split-ratios 0,0,1
timed build_he_multi build data/he-multi humaneval --samples "$SHARED/humaneval_generations_multi.jsonl" \
  --split-ratios 0,0,1
if [[ "$FINETUNED" == 1 ]]; then
  timed build_he_train build data/he-eval-x-python humaneval \
    --samples "$SHARED/humaneval_codegen16b_samples.jsonl" "${HE_TRAIN[@]}"
fi

for dir in "${rebuilt[@]}"; do  # a run on the old training data must not be resumed on the new
  if [[ "$dir" == data/mbpp-real || "$dir" == data/apps-subset ]] && [[ -d "$RUN_DIR" ]]; then
    stamp "  training data $dir was rebuilt: starting $RUN_DIR afresh"; rm -rf -- "$RUN_DIR"; break
  fi
done
for dir in "${rebuilt[@]}"; do  # the fine-tuned run trains on the same folders and HumanEval 0-81
  if [[ "$dir" == data/mbpp-real || "$dir" == data/apps-subset || "$dir" == data/he-eval-x-python ]] \
    && [[ -d "$RUN_DIR_FT" ]]; then
    stamp "  training data $dir was rebuilt: starting $RUN_DIR_FT afresh"; rm -rf -- "$RUN_DIR_FT"; break
  fi
done
stamp "2/4 training +experiment=zeroshot_cpu in $RUN_DIR"
timed train "$PY" train.py +experiment=zeroshot_cpu "${train_data[@]}" output_dir="$RUN_DIR"
if [[ "$FINETUNED" == 1 ]]; then  # the same data config, plus data.extra_dirs (HumanEval 0-81)
  stamp "2/4 training +experiment=finetuned_cpu in $RUN_DIR_FT (+ HumanEval problems 0-81)"
  timed train_ft "$PY" train.py +experiment=finetuned_cpu "${train_data[@]}" output_dir="$RUN_DIR_FT"
fi

stamp "3/4 zero-shot evaluation on HumanEval (never trained on)"
timed eval_he "$PY" evaluate.py ckpt_path="$RUN_DIR/best" data="$HE_DIR" split=test output_dir="$OUT/he-eval"
timed eval_he_multi "$PY" evaluate.py ckpt_path="$RUN_DIR/best" data=data/he-multi split=test \
  label=passed generators="$SHARED/humaneval_generations_multi.jsonl" output_dir="$OUT/he-multi"

free_scores=()
if [[ "${LIKELIHOODS:-0}" == 1 ]]; then
  stamp "   coder/reviewer likelihoods of HE-Eval (reference-free baselines)"
  timed likelihoods "$PY" scripts/likelihood_scores.py --data "$HE_DIR" --split test \
    --out "$OUT/likelihoods.jsonl"
  free_scores=(--reference-free-scores "$OUT/likelihoods.jsonl")
fi

finetuned=()
if [[ "$FINETUNED" == 1 ]]; then
  stamp "4/4 fine-tuned setting: both models on HumanEval problems $FT_TASKS only"
  # the zero-shot evaluation's rows of those problems (the same programs), and the zero-shot
  # model's scores of them, set beside the fine-tuned model's as a column of its evaluation
  "$PY" scripts/task_subset.py --data "$HE_DIR" --split test --tasks "$FT_TASKS" --out "$HE_DIR-$FT_TASKS"
  "$PY" scripts/task_subset.py --data data/he-multi --split test --tasks "$FT_TASKS" \
    --out "data/he-multi-$FT_TASKS"
  "$PY" scripts/zero_shot_scores.py --evaluation "$OUT/he-eval" --rows "$HE_DIR-$FT_TASKS/test.jsonl" \
    --out "$OUT_FT/zero-shot-he-eval.jsonl"
  "$PY" scripts/zero_shot_scores.py --evaluation "$OUT/he-multi" \
    --rows "data/he-multi-$FT_TASKS/test.jsonl" --out "$OUT_FT/zero-shot-he-multi.jsonl"
  timed eval_ft_he "$PY" evaluate.py ckpt_path="$RUN_DIR_FT/best" data="$HE_DIR-$FT_TASKS" split=test \
    scores="$OUT_FT/zero-shot-he-eval.jsonl" output_dir="$OUT_FT/he-eval"
  timed eval_ft_he_multi "$PY" evaluate.py ckpt_path="$RUN_DIR_FT/best" data="data/he-multi-$FT_TASKS" \
    split=test label=passed generators="$SHARED/humaneval_generations_multi.jsonl" \
    scores="$OUT_FT/zero-shot-he-multi.jsonl" output_dir="$OUT_FT/he-multi"
  finetuned=(--finetuned-checkpoint "$RUN_DIR_FT/best" --finetuned-he "$OUT_FT/he-eval"
             --finetuned-he-multi "$OUT_FT/he-multi" --finetuned-tasks "$FT_TASKS")
fi

timings=$(for key in "${!seconds[@]}"; do printf '%s=%s ' "$key" "${seconds[$key]}"; done)
"$PY" scripts/quality_report.py --out "$OUT" --checkpoint "$RUN_DIR/best" \
  --he "$OUT/he-eval" --he-multi "$OUT/he-multi" "${free_scores[@]}" "${finetuned[@]}" \
  --total-seconds $(( $(date +%s) - start )) --timings $timings
stamp "done: $OUT/report.md"
