# Two commands on a fresh machine: `make run` (app on the sample data) and `make test` (every test).
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8501

.PHONY: run test test-fast bench bench-load sample lint clean

$(VENV)/.installed: requirements.txt
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

run: $(VENV)/.installed
	$(PY) -m streamlit run app.py --server.port $(PORT) --server.headless true

# Lint and types, then every test (browser and PostgreSQL suites included; their Debian packages are
# installed when missing).
test: $(VENV)/.installed lint
	bash scripts/ensure-test-deps
	$(PY) -m pytest

# ruff and mypy, configured in pyproject.toml.
lint: $(VENV)/.installed
	$(PY) -m ruff check .
	$(PY) -m mypy

# Everything but the real-browser suite.
test-fast: $(VENV)/.installed
	$(PY) -m pytest -m "not browser"

bench: $(VENV)/.installed
	$(PY) bench/bench_report.py

# Concurrent sessions over Streamlit's websocket protocol against the app it starts on 127.0.0.1;
# e.g. make bench-load LOAD_ARGS="--sessions 2,5 --rounds 3".
bench-load: $(VENV)/.installed
	$(PY) bench/bench_load.py $(LOAD_ARGS)

sample: $(VENV)/.installed
	$(PY) sample_data/generate.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis screenshots
