# One-word developer loop. `make metrics` and `make test` are all a fresh machine needs.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
ROOT ?= .
# Revision a change is compared with (validate-changed, paths, provenance, diff).
BASE ?= origin/main

.PHONY: help metrics validate leaderboard check test fmt fmt-check clean-venv
.PHONY: new-scoring validate-changed paths provenance diff snapshot history

help:  ## list the targets
	@grep -E '^[a-z.-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 18

$(VENV)/.installed: requirements.txt  ## create .venv from the pinned requirements
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed requirements-dev.txt  ## add the pinned development tools (ruff, mypy)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

metrics: $(VENV)/.installed  ## validate every input, then write results/ (metrics and leaderboard)
	$(PY) scripts/compute_metrics.py --root $(ROOT)
	$(PY) scripts/aggregate_scoring.py --root $(ROOT)
	$(PY) scripts/build_leaderboard.py --root $(ROOT) $(if $(filter .,$(ROOT)),--readme)

validate: $(VENV)/.installed  ## check every input file; write nothing
	$(PY) scripts/validate.py --root $(ROOT)

leaderboard: $(VENV)/.installed  ## rebuild results/leaderboard.* (and README's embedded table) from the metric CSVs
	$(PY) scripts/build_leaderboard.py --root $(ROOT) $(if $(filter .,$(ROOT)),--readme)

check: $(VENV)/.installed  ## fail when committed results/ differ from what the inputs produce
	$(PY) scripts/check_results.py --root $(ROOT)

test: $(VENV)/.installed  ## run the test suite (on every core)
	$(PY) -m pytest -q -n auto

.PHONY: lint
lint: $(VENV)/.installed-dev  ## ruff (style, imports, bugbear) and mypy over scripts/, tests/ and bench/
	$(VENV)/bin/ruff check scripts tests bench
	$(VENV)/bin/mypy

fmt: $(VENV)/.installed  ## rewrite responses/, scoring/ and scoring_multi/ JSON in canonical form
	$(PY) scripts/fmt_json.py --root $(ROOT)

fmt-check: $(VENV)/.installed  ## fail when a JSON input is not in canonical form
	$(PY) scripts/fmt_json.py --root $(ROOT) --check

# --- governance: reviewers' pull requests, CI proofs, history ---------------------------------

new-scoring: $(VENV)/.installed  ## write a scoring template: SUBJECT=s CASE=RO-FOUL-001 RUN=r1 REVIEWER=you
	$(PY) scripts/new_scoring.py --root $(ROOT) --subject "$(SUBJECT)" --case "$(CASE)" --run "$(RUN)" --reviewer "$(REVIEWER)"

validate-changed: $(VENV)/.installed  ## validate only files changed since BASE (and their references)
	$(PY) scripts/validate.py --root $(ROOT) --changed "$(BASE)"

paths: $(VENV)/.installed  ## pre-flight: refuse links, submodules, odd or large files changed since BASE
	$(PY) scripts/check_pr_paths.py --root $(ROOT) --base "$(BASE)"

provenance: $(VENV)/.installed  ## fail on commits since BASE that edit results by hand or rewrite history
	$(PY) scripts/check_provenance.py --root $(ROOT) --base "$(BASE)"

diff: $(VENV)/.installed  ## Markdown diff of results vs BASE: ranks, deltas, disqualified, implausible jumps
	$(PY) scripts/results_diff.py --root $(ROOT) --base "$(BASE)"

snapshot: check  ## copy results into results/historico/DATE/ (DATE=YYYY-MM-DD, default today UTC)
	$(PY) scripts/snapshot.py --root $(ROOT) $(if $(DATE),--date "$(DATE)")

history: $(VENV)/.installed  ## a subject's metrics across snapshots (SUBJECT=s, default all)
	$(PY) scripts/history.py --root $(ROOT) $(if $(SUBJECT),--subject "$(SUBJECT)")

.PHONY: agreement
agreement: $(VENV)/.installed  ## several reviewers: results/agreement.csv and scoring_consolidated/ from scoring_multi/
	$(PY) scripts/aggregate_scoring.py --root $(ROOT)

.PHONY: bench
bench: $(VENV)/.installed  ## time compute_metrics and make metrics against the read-and-parse floor; writes bench/RESULTS.md
	$(PY) bench/run_bench.py

.PHONY: stats-check
stats-check: $(VENV)/.installed  ## simulation study of the statistics (type-I error, FWER, coverage); writes docs/statistics_check.md
	$(PY) bench/stats_check.py $(if $(REPLICATIONS),--replications $(REPLICATIONS))

clean-venv:  ## remove .venv
	rm -rf $(VENV)
