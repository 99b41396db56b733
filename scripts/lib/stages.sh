# Shared by scripts/quality.sh, quality_x.sh and gpu_check.sh (sourced, not run): stage stamps,
# stage timings, the resumable dataset build, and the check that the shelf files a script reads
# exist (require_shelf). The caller sets PY, STAGE (the name in the stamps)
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

require_shelf() {  # require_shelf WHAT TARGET FILE...: stop (exit 2) naming every missing shelf
  # file and both fixes (SHARED=DIR, or make fetch then SHARED=data/shelf TARGET)
  local what=$1 target=$2; shift 2
  local missing=() file
  for file in "$@"; do [[ -f "$file" ]] || missing+=("$file"); done
  ((${#missing[@]})) || return 0
  echo "error: $what from the shared data shelf; missing: ${missing[*]}" >&2
  echo "       either set SHARED=DIR to a folder holding them, or build them from their public sources:" >&2
  echo "       make fetch && SHARED=data/shelf $target   (docs/fetch.md)" >&2
  exit 2
}
