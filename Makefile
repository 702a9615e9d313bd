# One-word developer loop. `make metrics` and `make test` are all a fresh machine needs.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
ROOT ?= .

.PHONY: help metrics validate leaderboard check test fmt fmt-check clean-venv

help:  ## list the targets
	@grep -E '^[a-z.-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 14

$(VENV)/.installed: requirements.txt  ## create .venv from the pinned requirements
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

metrics: $(VENV)/.installed  ## validate every input, then write results/ (metrics and leaderboard)
	$(PY) scripts/compute_metrics.py --root $(ROOT)
	@if [ -f scripts/build_leaderboard.py ]; then $(PY) scripts/build_leaderboard.py --root $(ROOT); fi

validate: $(VENV)/.installed  ## check every input file; write nothing
	$(PY) scripts/validate.py --root $(ROOT)

leaderboard: $(VENV)/.installed  ## rebuild results/leaderboard.* from the metric CSVs
	$(PY) scripts/build_leaderboard.py --root $(ROOT)

check: $(VENV)/.installed  ## fail when committed results/ differ from what the inputs produce
	$(PY) scripts/check_results.py --root $(ROOT)

test: $(VENV)/.installed  ## run the test suite
	$(PY) -m pytest -q

fmt: $(VENV)/.installed  ## rewrite responses/ and scoring/ JSON in canonical form
	$(PY) scripts/fmt_json.py --root $(ROOT)

fmt-check: $(VENV)/.installed  ## fail when a JSON input is not in canonical form
	$(PY) scripts/fmt_json.py --root $(ROOT) --check

clean-venv:  ## remove .venv
	rm -rf $(VENV)
