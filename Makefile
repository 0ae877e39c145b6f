# Quartermaster. `make run` and `make test` are the two commands the README promises.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install run test lint format lock clean realcluster

install: $(STAMP)

$(STAMP): requirements.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $(STAMP)

run: install
	$(BIN)/python -m portal.embedded

test: install
	bash scripts/test.sh

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python scripts/dead_code.py

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

lock:
	rm -rf /tmp/qm-lock && $(PYTHON) -m venv /tmp/qm-lock
	/tmp/qm-lock/bin/pip install --quiet -r requirements-dev.in
	( echo "# Exact pins of requirements-dev.in (which includes requirements.in). Regenerate with \`make lock\`."; \
	  /tmp/qm-lock/bin/pip freeze ) > requirements.txt

# Real kube-apiserver/etcd/KWOK/Kueue binaries, built from Go modules into ~/.cache/quartermaster.
realcluster:
	bash realcluster/build.sh

clean:
	rm -rf $(VENV) var staticfiles .pytest_cache .ruff_cache
