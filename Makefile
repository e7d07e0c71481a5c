# One-command entry points. `make run` and `make test` build the stack's environment
# (.venv-current or .venv-legacy) from its lock when it is missing or the lock changed,
# and reuse it otherwise. Which stack: docs/explanation/stack.md.
SHELL := /bin/bash
.DEFAULT_GOAL := help

# The host decides the stack (scripts/stack.sh), STACK=current|legacy overrides; the
# first line of every target names it and says why.
STACK_LINE := $(shell scripts/stack.sh "$(STACK)")
ifeq ($(STACK_LINE),)
$(error STACK_LINE is empty: scripts/stack.sh said why above)
endif
override STACK := $(word 1,$(STACK_LINE))
STACK_MODE := $(word 2,$(STACK_LINE))
STACK_CHOICE := $(word 3,$(STACK_LINE))
ifneq ($(words $(STACK_LINE)),3)
$(info $(wordlist 4,999,$(STACK_LINE)))
endif
DEBIAN_ROOT := .debian13-root

ifeq ($(STACK_MODE),root)
# The host cannot run the current stack: every target runs, as written below, inside
# the Debian 13 root (built once), in this same folder. make's variables (ARGS, ...)
# reach the inner make through MAKEFLAGS; WIDE_DEEP_IN_ROOT tells it whether the stack
# was the host's default (then .venv links to its environment) or asked for.
# uv's cache goes in the project (.uv/cache), the mount .venv-current is on: uv links
# each installed file to its cached copy only within one mount, so a cache in the root's
# own /root copied all 4 GB of the environment a second time (a CI host ran out of disk).
GOALS := $(or $(MAKECMDGOALS),help)
$(firstword $(GOALS)):
	@scripts/debian_root.sh $(DEBIAN_ROOT)
	@WIDE_DEEP_IN_ROOT=$(STACK_CHOICE) UV_CACHE_DIR=$(CURDIR)/.uv/cache \
	  scripts/in_root.sh $(DEBIAN_ROOT) make --no-print-directory $(GOALS)
$(wordlist 2,999,$(GOALS)):
	@:
.PHONY: $(GOALS)
else

VENV := .venv-$(STACK)
PY := $(VENV)/bin/python
UV := $(VENV)/bin/uv
STAMP := $(VENV)/.synced-from-lock
LOCK := requirements/$(STACK).lock
# The Pythons the stack runs on, preferred first (scripts/find_python.sh looks for them).
PYTHON_VERSIONS := $(shell scripts/stack.sh --versions $(STACK))
# The Debian packages the tests use: model diagram, HTML report in a browser, and a
# MySQL-compatible server for the shared metadata store.
SYSTEM_PACKAGES := graphviz chromium chromium-driver mariadb-server

.PHONY: help run test test-fast lint lock bench bench-scale bench-stacks bench-score bench-trainer bench-evaluator bench-dataset bench-suite clean system-deps graphviz kfp-local dataset spans spans-demo docs

help:  ## List the targets.
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

# .venv names the host's own stack's environment, for `source .venv/bin/activate`.
# PYTHON=/path/to/python chooses the interpreter; else scripts/find_python.sh looks
# (the PATH, pyenv, Debian's venv package, uv's Pythons) and says where it found one.
$(STAMP): $(LOCK) pyproject.toml
	@scripts/make_venv.sh $(VENV) $(PYTHON_VERSIONS)
	@echo "Syncing $(VENV) with $(LOCK) (the first time downloads about 3 GB)"
	@uv=$$(scripts/uv.sh) && scripts/sync_lock.sh "$$uv" $(PY) $(LOCK)
	@$(UV) pip install --quiet --python $(PY) --no-deps --no-build-isolation -e .
	@if [ "$(STACK_CHOICE)" = default ]; then scripts/link_venv.sh $(VENV); fi
	@touch $@

system-deps:  ## Install the Debian packages the tests need (when root and missing).
	@scripts/system_deps.sh $(SYSTEM_PACKAGES)

graphviz:  ## Install graphviz (the model diagram) when root and missing; else say how.
	@scripts/system_deps.sh --without "the run draws no model diagram" graphviz

run: $(STAMP) graphviz  ## Run the whole pipeline locally on the shipped data.
	$(VENV)/bin/wide-deep-run $(ARGS)

dataset: $(STAMP)  ## Draft a dataset from a CSV: NAME=.. CSV=.. LABEL=.. POSITIVE=.. [ARGS=--overwrite].
	$(VENV)/bin/wide-deep-draft-dataset "$(NAME)" "$(CSV)" "$(LABEL)" "$(POSITIVE)" $(ARGS)

kfp-local: $(STAMP)  ## Compile for Kubeflow and run every task of the spec here, as KFP would.
	$(PY) -m kubeflow.harness $(ARGS)

# The documentation's tools (mkdocs, mkdocs-material, pytest-codeblocks) come from their
# own lock, installed beside the runtime's as the suite's tables are (a sync of
# the runtime lock removes them: the stamp then is older and they come back).
DOCS_LOCK := requirements/docs-$(STACK).lock
DOCS_STAMP := $(VENV)/.docs-synced-from-lock

$(DOCS_STAMP): $(DOCS_LOCK) $(STAMP)
	@$(UV) pip install --quiet --python $(PY) -r $(DOCS_LOCK)
	@touch $@

# mkdocs-material prints a banner about MkDocs 2.0 on every build; mkdocs is pinned to
# 1.6.1 in the docs' lock, so it does not concern this site.
docs: $(DOCS_STAMP)  ## Build the documentation site into outputs/site; a broken link or page stops it.
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build

# The code blocks of README.md and docs/ run as tests (pytest-codeblocks) beside tests/,
# with the environment's commands on the PATH, as the docs assume after `source
# .venv/bin/activate`; tests/docs/ parses the blocks marked as not runnable here.
DOC_BLOCKS := --codeblocks README.md docs tests
WITH_COMMANDS := PATH="$(CURDIR)/$(VENV)/bin:$$PATH"
# Two pytest workers, a test file each at a time (pytest-xdist): an end-to-end run keeps
# about one core busy, and a file's module fixtures (its pipeline runs) run once. Files
# go out in the order the suite sorts them, slow first (xdist's default reorders them by
# their number of tests). xdist's loadgroup, which would let the files reading the
# session's first run share a worker, sets a test's id as pytest 9 no longer reads it
# (xdist 3.8.0 writes item._nodeid): it splits files instead.
WORKERS := -n 2 --dist loadfile --no-loadscope-reorder

test: $(STAMP) $(DOCS_STAMP) system-deps  ## The whole test suite, end-to-end runs and the docs' code blocks included (about 55 minutes on two cores, two workers).
	$(WITH_COMMANDS) $(PY) -m pytest $(WORKERS) $(DOC_BLOCKS) $(PYTEST_ARGS)

test-fast: $(STAMP) $(DOCS_STAMP)  ## Only the fast tests (about a minute of pytest, two workers; a test of a second or more is marked slow).
	$(WITH_COMMANDS) $(PY) -m pytest -m "not slow" $(WORKERS) $(DOC_BLOCKS) $(PYTEST_ARGS)

lint: $(STAMP)  ## ruff check and format check; vulture for dead code (pyproject's [tool.vulture]).
	$(VENV)/bin/ruff check . && $(VENV)/bin/ruff format --check . && $(VENV)/bin/vulture

lock:  ## Re-resolve both stacks' locks (runtime, docs, bench) from pyproject.toml and the .in files.
	scripts/lock.sh $(UV)

bench: $(STAMP)  ## Median of 3 fresh runs, per component (ARGS=--reference: against TFX's example).
	$(PY) benchmarks/bench_run.py $(ARGS)

bench-scale: $(STAMP)  ## Full runs on 15k, 150k and 1.5M generated rows (about 20 minutes).
	$(PY) benchmarks/bench_scale.py $(ARGS)

bench-stacks: $(STAMP)  ## Both stacks side by side, alternating: the default run and 1.5M rows (ARGS="[--rounds 2] [--rows N]", about 25 minutes).
	$(PY) benchmarks/bench_stacks.py $(ARGS)

bench-score: $(STAMP)  ## wide-deep-score against a plain loop on 1.5M generated rows, with peak memory (after make run; ARGS="[--rows N] [--rounds R]").
	$(PY) benchmarks/bench_score.py $(ARGS)

bench-trainer: $(STAMP)  ## The Trainer's input pipeline against in-memory tensors (after make run).
	$(PY) benchmarks/bench_trainer.py $(ARGS)

bench-evaluator: $(STAMP)  ## TFMA's evaluation with and without the start-up's TFMA changes, alternating (after make run; about 6 minutes).
	$(PY) benchmarks/bench_evaluator.py $(ARGS)

bench-dataset: $(STAMP)  ## The model's AUC against tuned boosted trees (ARGS="--dataset NAME [--folds 5] [--seeds 1 2 3]", after its run).
	$(PY) benchmarks/bench_dataset.py $(ARGS)

# The suite's tables come from their own lock, installed beside the runtime's (a
# sync of requirements.lock removes them: the stamp then is older and they come back).
BENCH_LOCK := requirements/bench-$(STACK).lock
BENCH_STAMP := $(VENV)/.bench-synced-from-lock

$(BENCH_STAMP): $(BENCH_LOCK) $(STAMP)
	@$(UV) pip install --quiet --python $(PY) -r $(BENCH_LOCK)
	@touch $@

bench-suite: $(BENCH_STAMP)  ## Draft, run and cross-validate against tuned trees on 10 public tables (ARGS="[--folds 3] [--tables a,b] [--held-out | --panels] [--reuse]").
	$(PY) benchmarks/bench_suite.py $(ARGS)

spans: $(STAMP)  ## Write the taxi sample as quarterly spans, data/taxi-spans/span-NN/ (2013-Q1 = span-00).
	$(PY) scripts/make_spans.py $(ARGS)

data/taxi-spans/SPANS.md: data/taxi/taxi.csv scripts/make_spans.py | $(STAMP)
	$(PY) scripts/make_spans.py

spans-demo: $(STAMP) data/taxi-spans/SPANS.md  ## Run the 16 quarters in order, a window of 4, into outputs/spans-demo; print the history (~20 min).
	$(PY) scripts/spans_demo.py $(ARGS)

clean:  ## Remove run outputs (not the environment).
	rm -rf outputs

# TFMA's own notebook views (make notebook): a classic Notebook server in its own
# environment, since the runtime's Notebook 7 does not load TFMA's widget; the kernel
# is $(VENV). scripts/notebook_env.sh says why each piece is there.
NB_VENV := .venv-notebook
NB_LOCK := requirements/notebook.lock
NB_STAMP := $(NB_VENV)/.synced-from-lock
NB_PORT ?= 8888

$(NB_STAMP): $(NB_LOCK) $(STAMP) scripts/notebook_env.sh notebooks/nbextension/main.js
	@scripts/notebook_env.sh $(NB_VENV)
	@touch $@

.PHONY: notebook
notebook: $(NB_STAMP)  ## TFMA's views of the newest evaluation in a classic Notebook (WIDE_DEEP_EVALUATION=path, ARGS=--no-browser).
	$(NB_VENV)/bin/jupyter notebook --ip=127.0.0.1 --port=$(NB_PORT) \
		$$([ "$$(id -u)" = 0 ] && echo --allow-root) $(ARGS) notebooks/tfma_views.ipynb

endif
