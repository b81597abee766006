# sidebyside: `make html` builds the site, `make test` runs every test. Both set up .venv first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# An NVIDIA GPU gets the CUDA build of the same pinned TensorFlow (pyproject.toml's extras).
KIND   := $(shell nvidia-smi -L >/dev/null 2>&1 && echo cuda || echo cpu)
STAMP  := $(VENV)/.installed-$(KIND)
SPHINXOPTS ?=
# Warnings are errors, nitpicky references, keep going to report every problem, fresh environment.
SPHINXBUILD = $(BIN)/sphinx-build -b html -n -W --keep-going -E $(SPHINXOPTS)
export TF_CPP_MIN_LOG_LEVEL := 2
export MPLBACKEND := Agg
export PYTHONHASHSEED := 0
# One thread per framework, so the benchmark page compares like with like (stated on the page).
export TF_NUM_INTRAOP_THREADS := 1
export TF_NUM_INTEROP_THREADS := 1
# torch.compile's compiled kernels survive between builds (a cold compile costs ~10 s here).
export TORCHINDUCTOR_CACHE_DIR := $(CURDIR)/docs/_build/torchinductor

.PHONY: html test serve clean bench lint chromium

# (Re)install only when a requirements file or pyproject.toml changes.
$(STAMP): requirements/*.txt pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "Python 3.11+ is required; found $$($(PYTHON) --version). Set PYTHON=python3.11."; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[$(KIND)]" -r requirements/test.txt
	rm -f $(VENV)/.installed-*
	touch $@

# `make html EXAMPLE=autograd` builds only the examples whose file name contains "autograd".
html: $(STAMP)
	EXAMPLE=$(EXAMPLE) $(SPHINXBUILD) docs docs/_build/html
	@echo "Site: docs/_build/html/index.html"

test: $(STAMP) chromium
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# Debian's Chromium drives the browser tests (Playwright cannot download its own browser here).
chromium:
	@test -x /usr/bin/chromium || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium >/dev/null; \
	  else echo "Chromium is missing: run 'sudo apt-get install chromium' (browser tests need it)."; exit 1; fi; }

serve: html
	$(BIN)/python -m http.server --bind 127.0.0.1 --directory docs/_build/html 8000

bench: $(STAMP)
	$(BIN)/python tools/bench_build.py

lint: $(STAMP)
	$(BIN)/ruff check src tests gallery docs

clean:
	rm -rf docs/_build docs/auto_examples docs/jupyter_execute docs/sg_execution_times.rst
