# Autograd, Step by Step: set up, open and test the course.
# GNU make on Debian/Ubuntu (or macOS); needs only Python 3.10+. Run `make` for the list.

SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
PORT ?= 8888
VENV := .venv
VPY := $(VENV)/bin/python
PIP := $(VPY) -m pip
# pip -q still shows warnings and errors; the filter drops only the noise a file:// index
# makes for every package it does not hold ("Location ... is ignored").
PIP_INSTALL = set -o pipefail; $(PIP) install -q --disable-pip-version-check $(1) 2>&1 | \
  { grep -v "is ignored: it is neither a file nor a directory" || true; }
# The only torch this project ever installs (exact pin; see pyproject.toml, extra "oracle").
TORCH_SPEC := torch==2.15.0

# Until engine/__init__.py exists the editable install maps `engine` as a namespace package;
# the stamp's name changes when the file appears, so the install is redone exactly once.
STAMP_LAB := $(VENV)/.stamp-lab$(if $(wildcard engine/__init__.py),,-no-engine)
STAMP_TEST := $(VENV)/.stamp-test
STAMP_ORACLE := $(VENV)/.stamp-oracle
LAB_OVERRIDES := $(VENV)/share/jupyter/lab/settings/overrides.json
# The kernel's own start-up notes (its warning that the kernel talks to JupyterLab over TCP
# without encryption: on 127.0.0.1 that is this machine) kept out of the terminal; what a
# cell prints or warns still shows in the notebook. And matplotlib's font cache built during
# setup, not in a notebook's first plot (a pink "building the font cache" box).
KERNEL_CONFIG := $(VENV)/etc/ipython/ipython_kernel_config.json
FONT_CACHE := $(VENV)/.stamp-font-cache
# The course's JupyterLab extension (one hand-written file, course_tools/labextension/): a check
# cell's request carries its answer cell's current text, so an edit not yet run is seen.
LAB_EXTENSION := $(VENV)/share/jupyter/labextensions/autograd-step-by-step
SANITIZE := tests/nbval_sanitize.cfg

# Jupyter refuses to run as root unless told; containers often run as root.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root,)

# The learner's own copy of the course (git-ignored). Only `make workspace`, `make reset` and
# `make lab` (which runs `make workspace`) write into it, and they never overwrite a file.
WORKSPACE := workspace

# One BLAS/OpenMP thread for the kernels, tests and benchmarks: on a shared or busy machine a
# multi-threaded pool stalls (a small training step measured 10-40x slower), and results do
# not depend on how the work was split. Set them yourself to override.
export OPENBLAS_NUM_THREADS ?= 1
export OMP_NUM_THREADS ?= 1
export MKL_NUM_THREADS ?= 1

PHONY_ZH := lab-zh translations-status
.PHONY: $(PHONY_ZH) help lab workspace reset progress messages length test test-browser site floor-site first-result test-site oracle compare-torch fuzz bench lint execute exercises check-exercises release grade gradescope clean distclean check-dot check-chromium check-browsers check-npm check-bwrap

help: ## List the targets
	@echo "Autograd, Step by Step. Targets:"
	@grep -E '^[a-z][a-z-]*:.*## ' $(firstword $(MAKEFILE_LIST)) | \
	  awk 'BEGIN {FS = ":.*## "} {printf "  make %-16s %s\n", $$1, $$2}'
	@echo "Variables: PORT=$(PORT) (make lab PORT=8899), PYTHON=$(PYTHON)"

# JupyterLab on the workspace in one language ($(1): en or zh-CN; $(2): more options). The
# workspace records its language (.course-language: make progress and the checkers read it)
# and the lesson to open is lesson 00 of that edition (the English one until it is translated).
define START_LAB
	@first="$$($(PYTHON) -m course_tools.workspace --workspace "$(WORKSPACE)" language $(1))" || exit 1; \
	url="$$($(VPY) -m course_tools.workspace --workspace "$(WORKSPACE)" server)"; \
	if [ -n "$$url" ]; then \
	  echo "JupyterLab is already running on your workspace. Open:"; \
	  echo "  $$url"; \
	  echo "(To stop it, press Ctrl-C in the terminal where it runs. Its menus keep the language it started with.)"; \
	  exit 0; \
	fi; \
	echo "Starting JupyterLab on http://127.0.0.1:$(PORT) (or the next free port), in $(WORKSPACE)/."; \
	echo "Open the URL with the token printed below. Ctrl-C stops it."; \
	exec $(VENV)/bin/jupyter lab --ServerApp.ip=127.0.0.1 --ServerApp.port=$(PORT) \
	  --ServerApp.root_dir="$(CURDIR)/$(WORKSPACE)" \
	  --LabApp.default_url=/lab/tree/$$first $(2) \
	  --ServerApp.answer_yes=True $(ALLOW_ROOT)
endef

lab: $(STAMP_LAB) $(LAB_OVERRIDES) $(KERNEL_CONFIG) $(FONT_CACHE) $(LAB_EXTENSION)/package.json check-dot workspace ## Set up .venv if needed, then open your workspace in JupyterLab
	$(call START_LAB,en,)

# The Chinese edition (README.zh-CN.md): JupyterLab's menus in Simplified Chinese (the
# jupyterlab-language-pack-zh-CN package, installed with the others by the setup), the
# workspace's Chinese lesson 00 opened. The language is a settings override of this course's
# JupyterLab only (its own settings folder, LAB_SETTINGS_ZH): a learner's own JupyterLab
# settings are not touched (a language they chose there themselves still wins).
LAB_SETTINGS_ZH := $(VENV)/share/jupyter/lab/settings-zh-CN
lab-zh: $(STAMP_LAB) $(LAB_SETTINGS_ZH)/overrides.json $(KERNEL_CONFIG) $(FONT_CACHE) $(LAB_EXTENSION)/package.json check-dot workspace ## 中文版: open your workspace in JupyterLab in Simplified Chinese (Chinese lesson 00)
	$(call START_LAB,zh-CN,--LabApp.app_settings_dir="$(CURDIR)/$(LAB_SETTINGS_ZH)")

workspace: ## Copy the notebooks you do not have yet into workspace/ (never overwrites a file)
	@$(PYTHON) -m course_tools.workspace --workspace "$(WORKSPACE)" sync

reset: ## A fresh copy of one notebook in workspace/, yours kept aside (NB=exercises/04_copying.ipynb)
	@$(PYTHON) -m course_tools.workspace --workspace "$(WORKSPACE)" reset "$(NB)"

progress: ## Which exercises in workspace/ are done, not quite or not started
	@$(PYTHON) -m course_tools.workspace --workspace "$(WORKSPACE)" progress

length: $(STAMP_LAB) ## How long each lesson's main path takes (words, code cells, minutes)
	@$(VPY) -m course_tools.length

# The engine replays the kernels torch runs on this CPU (AVX2 or AVX-512); the parity tests,
# compare-torch and the fuzzer pin torch (ATen, oneDNN) and numpy to their AVX2 kernels so
# that every machine tests the same ones (tests/fidelity/test_float32_math.py checks the
# AVX-512 ones without the pins). On a CPU without AVX-512 the pins change nothing.
# (numpy refuses to disable a feature its build does not dispatch: the list is read from it.)
NPY_AVX512 = $(shell $(VPY) -c "from numpy._core._multiarray_umath import __cpu_dispatch__ as d; print(' '.join(x for x in d if x.startswith(('AVX512', 'X86_V4'))))" 2>/dev/null)
KERNEL_PINS = $(if $(filter x86_64 amd64,$(shell uname -m)),ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 NPY_DISABLE_CPU_FEATURES="$(NPY_AVX512)")

test: $(STAMP_TEST) $(KERNEL_CONFIG) $(FONT_CACHE) $(LAB_EXTENSION)/package.json check-dot ## Run the tests and check the notebooks' saved outputs (nbval)
	@args="tests"; \
	for d in notebooks solutions exercises; do \
	  if [ -n "$$(find $$d -name '*.ipynb' -not -path '*/.ipynb_checkpoints/*' -print -quit 2>/dev/null)" ]; then \
	    args="$$args $$d"; fi; \
	done; \
	if [ "$$args" = tests ]; then \
	  echo "No notebooks yet: running pytest only."; \
	else \
	  args="$$args --nbval --nbval-current-env --nbval-sanitize-with $(SANITIZE)"; \
	fi; \
	echo "$(KERNEL_PINS) $(VPY) -m pytest $$args"; \
	$(KERNEL_PINS) $(VPY) -m pytest $$args; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make test: error: pytest collected no tests." >&2; exit 1; fi; \
	exit $$rc

# Every notebook opened in JupyterLab by headless Chromium, run, and checked as a learner sees
# it (course_tools/browser_check.py); `make test` runs the same test, or skips it without Chromium.
test-browser: $(STAMP_TEST) $(KERNEL_CONFIG) $(FONT_CACHE) $(LAB_EXTENSION)/package.json check-dot check-chromium ## Run every notebook in JupyterLab in headless Chromium (screenshots: tests/browser_artifacts/)
	$(VPY) -m pytest tests/course/test_browser.py -v

# The browser edition (README, "The course in a browser"): JupyterLite + Pyodide, offline, in
# build/site/ (git-ignored), by course_tools/site/build.py. Its build tools live in their own
# venv, .site-venv/ (pinned in course_tools/site/requirements.txt); the Pyodide files, npm
# packages and wheels are pinned in course_tools/site/site.env and
# course_tools/site/inputs.sha256, and downloaded once into build/site-work/cache/. Needs npm.
SITE_INPUTS := course_tools/site
SITE_VENV := .site-venv
SITE_STAMP := $(SITE_VENV)/.stamp-site
SITE_LABEXTENSION := $(SITE_VENV)/share/jupyter/labextensions/autograd-step-by-step
site: $(SITE_STAMP) $(SITE_LABEXTENSION)/package.json check-npm ## Build the course for the browser (JupyterLite, offline) into build/site/
	$(SITE_VENV)/bin/python -m course_tools.site.build

# The floor of the site's time to the first result (issue 28): JupyterLite, the Pyodide kernel
# and numpy only, from the same pins, into build/floor-site/ (course_tools/site/build.py --floor).
floor-site: $(SITE_STAMP) check-npm ## Build the bare JupyterLite + Pyodide + numpy site (the floor) into build/floor-site/
	$(SITE_VENV)/bin/python -m course_tools.site.build --floor

# Time from opening lesson 00 to its first output, the course's site against the floor, in one
# run (course_tools/site/first_result.py; RUNS=5, BROWSERS="chromium firefox webkit"): the
# medians go to bench/first_result.json, which README's numbers must match.
RUNS ?= 5
BROWSERS ?= chromium
first-result: $(STAMP_TEST) check-chromium ## Time lesson 00's first output in build/site/ against build/floor-site/ (after make site floor-site)
	$(VPY) -m course_tools.site.first_result --runs $(RUNS) --browsers $(BROWSERS)

# The built site, served on 127.0.0.1 and run offline in headless Chromium (tests/web/, with
# course_tools/site/check.py; Firefox ESR and WebKit through WebDriver); and, after make
# release, the release's site searched for solutions (tests/web/test_release_site.py).
test-site: $(STAMP_TEST) check-chromium check-browsers ## Run lessons of build/site/ offline in Chromium, Firefox ESR and WebKit (after make site)
	$(VPY) -m pytest tests/web -v -s -p no:cacheprovider

$(SITE_STAMP): $(SITE_INPUTS)/requirements.txt
	@echo "Creating $(SITE_VENV) for the site's build tools ($(SITE_INPUTS)/requirements.txt)"
	@test -x $(SITE_VENV)/bin/python || $(PYTHON) -m venv $(SITE_VENV)
	@$(SITE_VENV)/bin/python -m pip install -q --disable-pip-version-check -r $(SITE_INPUTS)/requirements.txt 2>&1 | \
	  { grep -v "is ignored: it is neither a file nor a directory" || true; }
	@touch $@

# The course's JupyterLab extension goes into the site too (jupyter lite build finds it here).
$(SITE_LABEXTENSION)/package.json: $(wildcard course_tools/labextension/*.json course_tools/labextension/static/*.js course_tools/labextension/static/*.json) | $(SITE_STAMP)
	@rm -rf $(SITE_LABEXTENSION)
	@mkdir -p $(dir $(SITE_LABEXTENSION))
	@cp -R course_tools/labextension $(SITE_LABEXTENSION)

check-npm:
	@if command -v npm >/dev/null 2>&1; then \
	  :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "npm not found: installing it with apt-get (the site's build fetches two npm packages)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null; \
	else \
	  echo "make site: error: npm is needed (Debian/Ubuntu: sudo apt-get install npm)" >&2; exit 1; \
	fi

oracle: $(STAMP_ORACLE) ## Install torch==2.15.0 into .venv for the parity tests (CI runs this)

bench: $(STAMP_LAB) ## Run the benchmarks in bench/run.py
	@if [ -f bench/run.py ]; then \
	  $(VPY) bench/run.py; \
	else \
	  echo "make bench: bench/run.py does not exist yet, nothing to run."; \
	fi

messages: ## Update the checkers' message catalogs (template, translations, .mo) from the code
	@$(PYTHON) -m course_tools.messages

lint: $(STAMP_TEST) ## Check the code and notebooks with ruff
	$(VENV)/bin/ruff check .

# Every notebook is committed executed: re-run the ones you edit (NB="a.ipynb b.ipynb").
# Both editions: notebooks/zh-CN/ and solutions/zh-CN/ too (their exercises follow, as the English).
NOTEBOOKS := $(sort $(wildcard notebooks/[0-9]*.ipynb solutions/[0-9]*.ipynb) \
  $(wildcard notebooks/zh-CN/[0-9]*.ipynb solutions/zh-CN/[0-9]*.ipynb))
execute: $(STAMP_TEST) $(KERNEL_CONFIG) $(FONT_CACHE) check-dot ## Re-run notebooks in place, saving outputs (all, or NB="...")
	@for nb in $(NB); do case "$$(realpath -m "$$nb")" in "$(CURDIR)/$(WORKSPACE)"/*) \
	  echo "make execute: $$nb is in $(WORKSPACE)/, which is a learner's own copy: it is never rewritten by make. Run it in JupyterLab instead." >&2; \
	  exit 1;; esac; done
	$(VPY) -m course_tools.execute $(or $(NB),$(NOTEBOOKS))
	@# the exercises of the solutions just run (all of them when NB is not given)
	@# (solutions/zh-CN/04_copying.ipynb selects "zh-CN/04_copying": the Chinese exercises only)
	$(if $(NB),$(if $(filter solutions/%,$(NB)),$(VPY) -m course_tools.generate --execute --force \
	  $(basename $(patsubst solutions/%,%,$(filter solutions/%,$(NB))))),$(VPY) -m course_tools.generate --execute --force)

compare-torch: $(STAMP_TEST) $(STAMP_ORACLE) $(KERNEL_CONFIG) $(FONT_CACHE) check-dot ## Re-run the notebooks on real PyTorch, report outputs that differ
	$(KERNEL_PINS) $(VPY) -m course_tools.compare_torch $(NB)

# Differential fuzzing (tests/fuzz/): N random programs run under torch and under the engine,
# each in its own process; the first new mismatches of each kind are shrunk to minimal
# reproducers in tests/fuzz/out/ (git-ignored). 10,000 programs take about 3.5 minutes with 2 jobs.
N ?= 2000
JOBS ?= 2
fuzz: $(STAMP_TEST) $(STAMP_ORACLE) ## Fuzz the engine against torch: N random programs (N=2000), reproducers in tests/fuzz/out/
	$(KERNEL_PINS) $(VPY) -m tests.fuzz.run --seeds 0:$(N) --jobs $(JOBS) --shrink

exercises: $(STAMP_TEST) ## Write (and run) exercises/NN_*.ipynb from solutions/NN_*.ipynb
	$(VPY) -m course_tools.generate --execute

# The Chinese edition (notebooks/zh-CN/, solutions/zh-CN/, exercises/zh-CN/) against the English
# one: stale cells (the English changed since they were translated, with the English diff:
# DIFF=1), untranslated cells and notebooks, code/outputs/terms that differ
# (course_tools/translations.py; tests/course/test_translations.py fails on the same).
translations-status: $(STAMP_LAB) ## Which Chinese notebooks and cells need translating (DIFF=1: the English diffs)
	@$(VPY) -m course_tools.translations status $(if $(filter 1,$(DIFF)),--diff,)

check-exercises: $(STAMP_LAB) ## Fail if the exercise notebooks are out of sync with solutions/
	$(VPY) -m course_tools.generate --check

# For a class (TEACHING.md; course_tools/grade/): what a teacher hands out, and the grading of
# what comes back, each notebook run again in a sandbox (bubblewrap) and judged by the course's
# own checkers.
# The release's browser edition (OUT/site/) is make site's build on the released folder; SITE=0
# leaves it out (the folder and zip only, in seconds rather than minutes).
OUT ?= build/release
SITE ?= 1
release: $(STAMP_LAB) $(if $(filter 0,$(SITE)),,$(SITE_STAMP) $(SITE_LABEXTENSION)/package.json check-npm) ## The course without solutions: OUT/autograd-step-by-step/, its .zip and its browser edition OUT/site/ (OUT=..., SOLUTIONS=1, SITE=0)
	$(VPY) -m course_tools.grade release "$(OUT)" $(if $(filter 1,$(SOLUTIONS)),--solutions,) $(if $(filter 0,$(SITE)),,--site)

grade: $(STAMP_LAB) check-bwrap ## Grade SUBMISSIONS/<student>/NN_*.ipynb into OUT (default build/grades)
	@test -n "$(SUBMISSIONS)" || { echo "make grade: give SUBMISSIONS=<folder> (one folder per student)" >&2; exit 2; }
	$(VPY) -m course_tools.grade grade "$(SUBMISSIONS)" --out "$(if $(filter build/release,$(OUT)),build/grades,$(OUT))"

gradescope: $(STAMP_LAB) ## The Gradescope autograder zip (setup.sh, run_autograder) into build/gradescope/
	$(VPY) -m course_tools.grade gradescope build/gradescope

# JupyterLab's .ipynb_checkpoints/ are never removed: a checkpoint may be the only copy left of
# someone's work. workspace/ is never entered.
clean: ## Remove caches and build artefacts (keeps .venv and workspace/)
	rm -rf .pytest_cache .ruff_cache .hypothesis build dist bench/out tests/browser_artifacts
	find . \( -path ./$(VENV) -o -path ./$(WORKSPACE) -o -path ./.git \) -prune -o \
	  \( -name __pycache__ -o -name '*.egg-info' \) -type d -print0 | \
	  xargs -0 rm -rf

distclean: clean ## Remove .venv too; your workspace/ is kept
	rm -rf $(VENV) $(SITE_VENV)
	@if [ -d "$(WORKSPACE)" ]; then echo "Kept $(WORKSPACE)/: your work is there. (It is yours to move or delete.)"; fi

# --- setup steps -------------------------------------------------------------

$(VPY):
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null || { \
	  echo "error: '$(PYTHON)' is missing or older than Python 3.10. Install Python 3.10+ or run: make PYTHON=python3.12 ..." >&2; \
	  exit 1; }
	@$(PYTHON) -c 'import venv, ensurepip' 2>/dev/null || { \
	  echo "error: Python's venv module is not available for '$(PYTHON)'. On Debian/Ubuntu install it with:" >&2; \
	  echo "  sudo apt-get install python3-venv" >&2; \
	  exit 1; }
	@echo "Creating $(VENV) with $$($(PYTHON) --version)"
	@$(PYTHON) -m venv $(VENV) || { rm -rf $(VENV); exit 1; }

# Stamps record what is installed; they are redone only when pyproject.toml changes.
$(STAMP_LAB): pyproject.toml | $(VPY)
	@echo "Installing the course and its dependencies into $(VENV) (first time: about a minute)"
	@echo "pip install -e ."
	@$(call PIP_INSTALL,-e .)
	@# Build matplotlib's font cache now, not inside the first notebook cell.
	@$(VPY) -c 'import matplotlib.font_manager' 2>/dev/null || true
	@touch $@

# The "browser" extra is Python playwright (about 40 MB): it drives the system's Chromium and
# never downloads a browser (`playwright install` is never run). (A variable, because a comma
# would split $(call)'s arguments.)
TEST_EXTRAS := .[test,browser]
$(STAMP_TEST): $(STAMP_LAB)
	@echo "Installing the test tools into $(VENV)"
	@echo "pip install -e '$(TEST_EXTRAS)'"
	@$(call PIP_INSTALL,-e '$(TEST_EXTRAS)')
	@touch $@

$(STAMP_ORACLE): pyproject.toml | $(STAMP_LAB)
	@echo "Installing $(TORCH_SPEC) into $(VENV) (the test oracle only; PyPI's Linux wheel bundles CUDA: about 5 GB, a few minutes)"
	@echo "pip install '$(TORCH_SPEC)'"
	@$(call PIP_INSTALL,'$(TORCH_SPEC)')
	@touch $@

# Where `dot` is missing, the extension draws pictures in the page with @viz-js/viz: the copy
# `make site` downloaded goes beside it when there is one (otherwise pictures show as text).
$(LAB_EXTENSION)/package.json: $(wildcard course_tools/labextension/*.json course_tools/labextension/static/*.js course_tools/labextension/static/*.json) | $(STAMP_LAB)
	@rm -rf $(LAB_EXTENSION)
	@mkdir -p $(dir $(LAB_EXTENSION))
	@cp -R course_tools/labextension $(LAB_EXTENSION)
	@viz=$$(ls build/site/static/pyodide/viz-*.js 2>/dev/null | tail -n 1); \
	  if [ -n "$$viz" ]; then cp "$$viz" $(LAB_EXTENSION)/static/; fi

$(KERNEL_CONFIG): course_tools/kernel/ipython_kernel_config.json | $(STAMP_LAB)
	@mkdir -p $(dir $@)
	@cp $< $@

$(FONT_CACHE): | $(STAMP_LAB)
	@echo "Building matplotlib's font cache (once)"
	@MPLBACKEND=Agg $(VPY) -c "import matplotlib.font_manager" && touch $@

# Switch off JupyterLab's news pop-up (it covers part of the page).
LAB_NEWS_OFF := "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": false}
$(LAB_OVERRIDES): | $(STAMP_LAB)
	@mkdir -p $(dir $@)
	@echo '{$(LAB_NEWS_OFF)}' > $@

# make lab-zh's settings: the same, and the language pack's locale (its entry point's name).
$(LAB_SETTINGS_ZH)/overrides.json: Makefile | $(STAMP_LAB)
	@mkdir -p $(dir $@)
	@echo '{$(LAB_NEWS_OFF), "@jupyterlab/translation-extension:plugin": {"locale": "zh_CN"}}' > $@

# Debian's Chromium for the browser test (and an emoji font: the exercise checkers answer
# with ✅ and ❌). Without root or apt-get the browser test is skipped, with the reason.
CHROMIUM ?= /usr/bin/chromium
check-chromium:
	@if [ -x $(CHROMIUM) ]; then \
	  :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "Chromium not found: installing Debian's chromium with apt-get (about 500 MB)"; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	      chromium fonts-noto-color-emoji >/dev/null; } || \
	    echo "warning: apt-get could not install chromium; the browser test will be skipped." >&2; \
	else \
	  echo "Chromium not found at $(CHROMIUM): the browser test will be skipped. Install it with:"; \
	  echo "  Debian/Ubuntu: sudo apt-get install chromium fonts-noto-color-emoji"; \
	fi
	@# A Chinese font for the Chinese edition's browser test (JupyterLab in Chinese: its
	@# screenshots show boxes without one).
	@if command -v fc-list >/dev/null 2>&1 && [ -z "$$(fc-list :lang=zh 2>/dev/null)" ] && \
	    [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "No Chinese font: installing fonts-wqy-microhei with apt-get (the Chinese edition's browser test)"; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-wqy-microhei >/dev/null || \
	    echo "warning: apt-get could not install fonts-wqy-microhei; Chinese text may show as boxes." >&2; \
	fi

# Firefox ESR and WebKitGTK (Safari's engine) for the site's test in other browsers
# (tests/web/test_other_browsers.py, driven over WebDriver: course_tools/site/drivers.py).
# Without root or apt-get those tests are skipped, with the reason.
check-browsers:
	@missing=""; \
	[ -x /usr/bin/firefox-esr ] || missing="$$missing firefox-esr"; \
	[ -x /usr/bin/WebKitWebDriver ] || missing="$$missing webkit2gtk-driver"; \
	command -v Xvfb >/dev/null 2>&1 || missing="$$missing xvfb"; \
	if [ -z "$$missing" ]; then \
	  :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "Installing$$missing with apt-get (the site's test in Firefox and WebKit)"; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	      $$missing >/dev/null; } || \
	    echo "warning: apt-get could not install$$missing; those browsers' tests will be skipped." >&2; \
	else \
	  echo "Missing$$missing: the site's Firefox/WebKit tests will be skipped. Install with:"; \
	  echo "  Debian/Ubuntu: sudo apt-get install$$missing"; \
	fi

# Debian's bubblewrap, the grader's sandbox (without it `make grade` warns and runs with the
# resource limits only).
check-bwrap:
	@if command -v bwrap >/dev/null 2>&1; then \
	  :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "bubblewrap not found: installing it with apt-get (the grader's sandbox)"; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null; } || \
	    echo "warning: apt-get could not install bubblewrap; make grade will run without isolation." >&2; \
	else \
	  echo "bubblewrap (bwrap) not found: make grade will run without isolation. Install it with:"; \
	  echo "  Debian/Ubuntu: sudo apt-get install bubblewrap"; \
	fi

check-dot:
	@if command -v dot >/dev/null 2>&1; then \
	  :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "Graphviz 'dot' not found: installing it with apt-get"; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz >/dev/null; } || \
	    echo "warning: apt-get could not install graphviz; graph pictures will fall back to text." >&2; \
	else \
	  echo "Graphviz 'dot' not found: graph pictures will fall back to text. Install it with one of:"; \
	  echo "  Debian/Ubuntu: sudo apt-get install graphviz"; \
	  echo "  macOS:         brew install graphviz"; \
	  echo "  conda:         conda install -c conda-forge graphviz"; \
	fi
