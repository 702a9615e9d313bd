# One-word developer loop. `make metrics` and `make test` are all a fresh machine needs.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# The `rgbench` command of this checkout (scripts/rgbench; -P: the current folder, a benchmark tree, is not on sys.path).
RGBENCH = PYTHONPATH=scripts $(PY) -P -m rgbench
ROOT ?= .
# Revision a change is compared with (validate-changed, paths, provenance, diff).
BASE ?= origin/main

.PHONY: help metrics validate leaderboard check test fmt fmt-check clean-venv
.PHONY: new-scoring validate-changed paths codeowners provenance diff snapshot history

help:  ## list the targets
	@grep -E '^[a-z.-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 18
	@echo "Each target, and the rgbench subcommand it runs, is described in docs/maintainer.md (Commands)."

# --- .venv: Python 3.11+ checked first; rebuilt when it was made by another Python version ------------
# X.Y of $(PYTHON), and of the Python .venv runs (empty when .venv is missing or broken).
PY_XY = import sys; print("%d.%d" % sys.version_info[:2])
PYTHON_XY := $(shell $(PYTHON) -c '$(PY_XY)' 2>/dev/null)
VENV_XY := $(shell $(PY) -c '$(PY_XY)' 2>/dev/null)
# A .venv that no longer runs, or runs another Python version than $(PYTHON), is rebuilt whatever its stamps say.
VENV_STALE := $(if $(wildcard $(VENV)),$(if $(filter $(PYTHON_XY),$(VENV_XY)),,venv-stale))

.PHONY: venv-stale
venv-stale: ;

$(VENV)/.installed: requirements.txt $(VENV_STALE)  ## create .venv from the pinned runtime requirements
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || { \
	  echo "rgbench needs Python 3.11 or newer: PYTHON=$(PYTHON) is $(or $(PYTHON_XY),not a working Python) (install 3.11+, or run make PYTHON=python3.11)" >&2; exit 1; }
	@if [ -n "$(VENV_STALE)" ]; then echo "$(VENV) runs Python $(or $(VENV_XY),nothing (broken)), PYTHON=$(PYTHON) is $(PYTHON_XY): rebuilding it"; rm -rf $(VENV); fi
	@[ -x $(PY) ] || { echo "creating $(VENV) with Python $(PYTHON_XY)"; $(PYTHON) -m venv $(VENV); }
	@echo "installing the pinned runtime requirements (requirements.txt) into $(VENV)"
	$(PY) -m pip install --disable-pip-version-check --progress-bar on -r requirements.txt
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed requirements-dev.txt requirements-analysis.txt  ## add the pinned test and lint tools (pytest, ruff, mypy, zizmor)
	@echo "installing the pinned development requirements (requirements-dev.txt) into $(VENV)"
	$(PY) -m pip install --disable-pip-version-check --progress-bar on -r requirements-dev.txt
	touch $@

metrics: $(VENV)/.installed  ## validate every input, then write results/ (metrics, agreement, leaderboard), reading the tree once
	$(RGBENCH) metrics --root $(ROOT) $(if $(filter .,$(ROOT)),--readme)

validate: $(VENV)/.installed  ## check every input file; write nothing
	$(RGBENCH) validate --root $(ROOT)

leaderboard: $(VENV)/.installed  ## rebuild results/leaderboard.* (and README's embedded table) from the metric CSVs
	$(RGBENCH) leaderboard --root $(ROOT) $(if $(filter .,$(ROOT)),--readme)

check: $(VENV)/.installed  ## fail when committed results/ differ from what the inputs produce
	$(RGBENCH) check --root $(ROOT)

test: $(VENV)/.installed-dev  ## run the test suite on every core, end-to-end modules aside (see test-slow)
	$(PY) -m pytest -q -n auto -m "not slow"

.PHONY: test-slow
test-slow: $(VENV)/.installed-dev  ## the end-to-end modules (git, wheel, browser, profiler; tests/conftest.py SLOW_MODULES)
	$(PY) -m pytest -q -n auto -m slow

# --- portability (issue 13): the suite's portable part on a fork holding examples/medadvice
.PHONY: test-fork
test-fork: $(VENV)/.installed-dev  ## copy the repository, replace system/ and the data with examples/medadvice, run the portable tests there
	RGBENCH_FORK_TEST=1 $(PY) -m pytest -q tests/test_portability.py

.PHONY: lint
lint: $(VENV)/.installed-dev  ## ruff over scripts/, tests/ and bench/, mypy over scripts/ and bench/; zizmor over the workflows (ours and the rgbench init template's)
	$(VENV)/bin/ruff check scripts tests bench
	$(VENV)/bin/mypy
	$(VENV)/bin/zizmor --offline --persona=auditor --no-progress -q .github .pre-commit-config.yaml scripts/rgbench/templates/init/.github

fmt: $(VENV)/.installed  ## rewrite responses/, scoring/ and scoring_multi/ JSON in canonical form
	$(RGBENCH) fmt --root $(ROOT)

fmt-check: $(VENV)/.installed  ## fail when a JSON input is not in canonical form
	$(RGBENCH) fmt --root $(ROOT) --check

# --- governance: reviewers' pull requests, CI proofs, history ---------------------------------

new-scoring: $(VENV)/.installed  ## write a scoring template: SUBJECT=s CASE=RO-FOUL-001 RUN=r1 REVIEWER=you
	$(RGBENCH) new-scoring --root $(ROOT) --subject "$(SUBJECT)" --case "$(CASE)" --run "$(RUN)" --reviewer "$(REVIEWER)"

validate-changed: $(VENV)/.installed  ## validate only files changed since BASE (and their references)
	$(RGBENCH) validate --root $(ROOT) --changed "$(BASE)"

paths: $(VENV)/.installed  ## pre-flight since BASE, as the gate runs it: AUTHOR=login checks authorship; the role a change needs; refuse links, submodules, odd or large files (MAINTAINER=1)
	$(RGBENCH) paths --root $(ROOT) --base "$(BASE)" $(if $(AUTHOR),--author "$(AUTHOR)") $(if $(MAINTAINER),--maintainer)

codeowners: $(VENV)/.installed  ## rewrite .github/CODEOWNERS' generated block from subjects/registry.yaml (answered_by); make test checks it
	$(RGBENCH) codeowners --root $(ROOT)

provenance: $(VENV)/.installed  ## fail on commits since BASE that edit results by hand or rewrite history
	$(RGBENCH) provenance --root $(ROOT) --base "$(BASE)"

diff: $(VENV)/.installed  ## Markdown diff of results vs BASE: ranks, deltas, disqualified, implausible jumps
	$(RGBENCH) diff --root $(ROOT) --base "$(BASE)"

snapshot: check  ## copy results into results/historico/DATE/ (DATE=YYYY-MM-DD, default today UTC)
	$(RGBENCH) snapshot --root $(ROOT) $(if $(DATE),--date "$(DATE)")

history: $(VENV)/.installed  ## a subject's metrics across snapshots (SUBJECT=s, default all)
	$(RGBENCH) history --root $(ROOT) $(if $(SUBJECT),--subject "$(SUBJECT)")

.PHONY: agreement
agreement: $(VENV)/.installed  ## several reviewers: results/agreement.csv and scoring_consolidated/ from scoring_multi/
	$(RGBENCH) agreement --root $(ROOT)

.PHONY: bench
bench: $(VENV)/.installed  ## time compute_metrics and make metrics against the read-and-parse floor; writes bench/RESULTS.md
	$(PY) bench/run_bench.py

.PHONY: stats-check
stats-check: $(VENV)/.installed  ## simulation study of the statistics (type-I error, FWER, coverage); writes docs/statistics_check.md
	$(PY) bench/stats_check.py $(if $(REPLICATIONS),--replications $(REPLICATIONS))

clean-venv:  ## remove .venv
	rm -rf $(VENV)

# --- grading: the local review page and planned second grades ----------------------------------

.PHONY: review assign draw plan
review: $(VENV)/.installed  ## local grading page on 127.0.0.1 (REVIEWER=you, PORT=n optional, UNBLIND=1 shows the subject)
	$(RGBENCH) review --root $(ROOT) --reviewer "$(REVIEWER)" $(if $(PORT),--port "$(PORT)") $(if $(UNBLIND),--unblind)

assign: $(VENV)/.installed  ## pick second grades: SHARE=0.2 (default) of graded runs, stratified by family and subject; REASSIGN=<id>: theirs to others
	$(RGBENCH) assign --root $(ROOT) $(if $(REASSIGN),--reassign "$(REASSIGN)",--share "$(or $(SHARE),0.2)")

draw: $(VENV)/.installed  ## judge-assisted: append a human draw to subjects/human_draws.json, N=8 stratified or NEXT=5 active (SUBJECTS=a,b: over those only); REASSIGN=rev-3: their waiting runs to the others
	$(RGBENCH) assign --root $(ROOT) $(if $(REASSIGN),--reassign "$(REASSIGN)",$(if $(NEXT),--next "$(NEXT)",--draw "$(or $(N),8)") $(if $(SUBJECTS),--subjects "$(SUBJECTS)"))

plan: $(VENV)/.installed  ## judge-assisted: the human grades each figure and neighbouring pair still needs (HALF_WIDTH=0.03)
	$(RGBENCH) plan --root $(ROOT) $(if $(HALF_WIDTH),--half-width "$(HALF_WIDTH)")
