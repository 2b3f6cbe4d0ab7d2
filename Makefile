# Daily Patience: `make run` serves the app, `make test` runs lint, format check and tests
# (then the browser tests in their own pytest run: sync Playwright and pytest-asyncio clash).

PYTHON_BOOT := $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test lint bench solver-bench winrates clean

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

# The solver against its targets: decided shares and positions per second on bench-0 … bench-99.
solver-bench: $(VENV)/.installed-run
	$(BIN)/python benchmarks/solver.py --deals 100 --seconds 10

# The win-rate study (long: one deal at a time on one core); rewrites docs/winrates.md.
winrates: $(VENV)/.installed-run
	$(BIN)/python benchmarks/winrates.py --deals 100 --seconds 5

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .ruff_cache .mypy_cache
