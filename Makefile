# Daily Patience: `make run` serves the app, `make test` runs lint, format check and tests
# (then the browser tests in their own pytest run: sync Playwright and pytest-asyncio clash).

PYTHON_BOOT := $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test lint bench load board clean

run: $(VENV)/.installed-run
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py loadvariants
	$(BIN)/uvicorn config.asgi:application --host 127.0.0.1 --port 8000

test: $(VENV)/.installed-dev lint
	$(BIN)/pytest -m "not browser"
	$(BIN)/pytest -m browser tests/e2e -p no:asyncio -W ignore::pytest.PytestConfigWarning

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy games/engine

$(BIN)/python:
	$(PYTHON_BOOT) -m venv $(VENV)

$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -e '.[dev]'
	touch $@ $(VENV)/.installed-run

bench: $(VENV)/.installed-run
	$(BIN)/python benchmarks/engine.py

$(VENV)/.installed-bench: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -e '.[bench]'
	touch $@ $(VENV)/.installed-run

# The load benchmark against PostgreSQL and Redis (BENCH_DATABASE_URL, BENCH_REDIS_URL);
# LOAD_ARGS=--quick for a smoke run of seconds.
load: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/load.py $(LOAD_ARGS)

board: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/board.py $(BOARD_ARGS)

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .ruff_cache .mypy_cache
