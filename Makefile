# Two commands on a fresh machine: `make run` (app on the sample data) and `make test` (every test).
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8501
# Tests on two processes (pytest-xdist); each starts its own app server, Spark session and PostgreSQL server
# when its tests need one (the Spark and PostgreSQL tests are each kept on one process: xdist_group).
# Bytecode is written for pytest's runs even where PYTHONDONTWRITEBYTECODE is set: without it every run
# compiles and assertion-rewrites every module again (collection: 12.8 s of CPU instead of 5.0 s).
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -n 2 --dist loadgroup

.PHONY: run room test test-fast bench bench-scale bench-uploads bench-load sample lint clean

$(VENV)/.installed: requirements.txt
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

# The Spark engine is optional (pyspark is large): the tests install it, `make run` does not.
$(VENV)/.installed-spark: $(VENV)/.installed requirements-spark.txt
	$(PY) -m pip install --quiet -r requirements-spark.txt
	touch $@

run: $(VENV)/.installed
	$(PY) -m streamlit run app.py --server.port $(PORT) --server.headless true

# The app for a room (a meeting on one link): one Streamlit process per core behind HAProxy, each browser kept on
# one process (scripts/serve_room.py; Debian's haproxy is installed when missing). e.g. make room WORKERS=4
WORKERS ?= $(shell nproc)
room: $(VENV)/.installed
	bash scripts/ensure-test-deps haproxy
	$(PY) scripts/serve_room.py --workers $(WORKERS) --port $(PORT)

# Lint and types, then every test (browser, PostgreSQL and Spark suites included; their Debian packages
# are installed when missing).
# Three processes: the browser suite on one (the xdist group `browser`, tests/conftest.py) beside the rest on the
# other two, in one run (quiet machine, 2026-12-02: 12 min 41 s; the rest then the browser suite, 16 min 46 s).
# Not two browser processes: slower (13 min 05 s on four processes), and two chromiums and two app servers once
# timed out waiting for each other.
test: $(VENV)/.installed $(VENV)/.installed-spark lint
	bash scripts/ensure-test-deps
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -n 3 --dist loadgroup

# ruff, mypy and the import layers (import-linter), configured in pyproject.toml.
lint: $(VENV)/.installed
	$(PY) -m ruff check .
	$(PY) -m mypy
	$(VENV)/bin/lint-imports

# Everything but the real-browser, PostgreSQL, Spark and packaging suites (markers in pytest.ini): the packaging
# tests build the wheel and fresh virtual environments (about 10 minutes of CPU between them).
test-fast: $(VENV)/.installed
	$(PYTEST) -m "not browser and not postgres and not spark and not packaging"

bench: $(VENV)/.installed
	$(PY) bench/bench_report.py

# The report at 100k, 1M and 10M runs against each engine's floor, in one run (about 15 minutes; the
# generated files are kept in BENCH_DATA and reused); e.g. make bench-scale SCALE_ARGS="--sizes 1000000".
BENCH_DATA ?= /tmp/explorer-bench
bench-scale: $(VENV)/.installed
	$(PY) bench/bench_scale.py --keep $(BENCH_DATA) $(SCALE_ARGS)

# A real server's resident memory as N sessions upload distinct files (Chromium over HTTP and the websocket),
# with the dataset cache's budget; e.g. make bench-uploads UPLOAD_ARGS="--uploads 8 --cache-memory 1GB".
bench-uploads: $(VENV)/.installed
	$(PY) bench/bench_uploads.py $(UPLOAD_ARGS)

# Concurrent sessions over Streamlit's websocket protocol against the room it starts on 127.0.0.1 (as `make room`:
# WORKERS Streamlit processes behind HAProxy); e.g. make bench-load LOAD_ARGS="--sessions 2,5 --rounds 3" WORKERS=1
# (WORKERS=1: one `streamlit run`, no HAProxy).
LOAD_ARGS ?= --sessions 10,40 --rounds 5
bench-load: $(VENV)/.installed
	bash scripts/ensure-test-deps haproxy
	$(PY) bench/bench_load.py --workers $(WORKERS) $(LOAD_ARGS)

sample: $(VENV)/.installed
	$(PY) sample_data/generate.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis screenshots
