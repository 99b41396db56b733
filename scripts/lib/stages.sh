# Shared by scripts/quality.sh and scripts/quality_x.sh (sourced, not run): stage stamps, stage
# timings, and the resumable dataset build. The caller sets PY, STAGE (the name in the stamps)
# and `start` (date +%s), and declares `seconds` (declare -A) and `rebuilt` (an array).

stamp() { echo "[$STAGE $(( $(date +%s) - start ))s] $*"; }

timed() {  # timed NAME CMD...: run CMD, record its wall seconds under NAME
  local name=$1; shift; local t0; t0=$(date +%s)
  "$@"
  seconds[$name]=$(( $(date +%s) - t0 ))
}

build() {  # build DIR ARGS...: skipped when DIR holds a complete build with these settings (its
  # build_info.json manifest equals what this command would build now); an unfinished one resumes;
  # a build with other settings (builder config, decontamination, samples file, ...) is removed,
  # recorded in `rebuilt`, and rebuilt
  local dir=$1; shift
  local state=0
  "$PY" -m data_builders build "$@" --out "$dir" --check || state=$?
  case $state in
    0) stamp "  $dir already built"; return ;;
    1) ;;
    2) stamp "  $dir was built with other settings: rebuilding"; rm -rf -- "$dir"; rebuilt+=("$dir") ;;
    *) exit "$state" ;;
  esac
  "$PY" -m data_builders build "$@" --out "$dir"
}
