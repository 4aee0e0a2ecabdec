# The two commands of the README: `make demo` (the main job) and `make test`.
# Both bootstrap everything on a fresh machine: system packages (graphviz,
# Java 17) when missing, the virtual environment and the pinned dependencies.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.kleene-installed
SYSTEM := $(VENV)/.kleene-system

.PHONY: demo test lint bench clean peers

$(SYSTEM): scripts/bootstrap-system.sh
	@mkdir -p $(VENV)
	@bash scripts/bootstrap-system.sh
	@touch $@

$(STAMP): pyproject.toml constraints.txt | $(SYSTEM)
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -m pip install -q --disable-pip-version-check -c constraints.txt -e '.[dev]'
	@touch $@

demo: $(STAMP) $(SYSTEM)
	@$(VENV)/bin/kleene demo

test: $(STAMP) $(SYSTEM)
	@$(PY) -m pytest -q

lint: $(STAMP)
	@$(VENV)/bin/ruff check .
	@bash scripts/mypy.sh
	@$(VENV)/bin/lint-imports --no-cache --no-logo
	@$(PY) scripts/house.py

bench: $(STAMP) $(SYSTEM)
	@$(PY) -m bench

# Real engines (Flink SQL, pandas-match-recognize) in .peers/, checked by kleene conform;
# writes docs/peers.md. Not part of `make test` (too heavy).
peers: $(STAMP) $(SYSTEM)
	@PYTHON=$(PYTHON) bash scripts/peers.sh

clean:
	rm -rf $(VENV) out .pytest_cache .hypothesis .peers
