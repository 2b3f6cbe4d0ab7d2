# Daily Patience: `make run` serves the app, `make test` runs lint (Python and JavaScript), format
# check and tests
# (then the browser tests in their own pytest run: sync Playwright and pytest-asyncio clash).

PYTHON_BOOT := $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test lint lock drill messages screenshots icons bench fuzz load soak board movepath http-bench solver-bench winrates difficulty clean

# The service and, beside it, the scheduler (the day's certified deals, closed days, the deals
# admins asked to regenerate); stopping the service stops both.
run: $(VENV)/.installed-run staticfiles/staticfiles.json
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py loadvariants
	@$(BIN)/python manage.py runscheduler & scheduler=$$!; \
	trap 'kill $$scheduler 2>/dev/null' EXIT; \
	$(BIN)/python -m config.serve config.asgi:application --host 127.0.0.1 --port 8000 \
		--ws-max-size 131072

# The static files under their hashed names (config/staticfiles.py), collected again whenever a
# source file or the installed packages change.
staticfiles/staticfiles.json: $(VENV)/.installed-run $(shell find */static -type f 2>/dev/null)
	$(BIN)/python manage.py collectstatic --noinput --verbosity 0

# The suite runs in TEST_WORKERS processes (pytest-xdist), each with a test database and a Redis
# database of its own (config/settings.py); the browser tests likewise, each process with its own
# server (tests/e2e/conftest.py) and Chromium.
TEST_WORKERS ?= 2
test: $(VENV)/.installed-dev lint
	$(BIN)/pytest -m "not browser" -n $(TEST_WORKERS)
	$(BIN)/pytest -m browser tests/e2e -p no:asyncio -W ignore::pytest.PytestConfigWarning \
		-n $(TEST_WORKERS)

lint: $(VENV)/.installed-dev node_modules/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy games/engine
	$(BIN)/lint-imports --no-logo
	node_modules/.bin/eslint .

# ESLint for the browser client (eslint.config.js), at the exact versions of package-lock.json.
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

# The translations (docs/languages.md): extract the server's sentences into every
# locale/<language>/LC_MESSAGES/django.po (GNU gettext's xgettext and msgmerge), compile them into
# django.mo (msgfmt), then check them and the client's frontend/i18n/<language>.json: what is
# untranslated, stale or compiled out of date.
MESSAGES_IGNORE := --ignore=.venv --ignore=tests --ignore=benchmarks --ignore=staticfiles \
	--ignore=var --ignore=docs

messages: $(VENV)/.installed-dev
	$(BIN)/python manage.py makemessages --all --no-obsolete --add-location=file $(MESSAGES_IGNORE)
	$(BIN)/python manage.py compilemessages $(MESSAGES_IGNORE)
	$(BIN)/python -m config.catalogues

# The table of every launch variant at a phone's and a laptop's size, the replay and the phone
# leaderboard, the looks and the settings panel, the home page by family and two rules pages'
# pictures, into docs/screenshots/.
screenshots: $(VENV)/.installed-dev
	SCREENSHOTS=1 $(BIN)/pytest -m browser tests/e2e/test_table.py -p no:asyncio \
		-W ignore::pytest.PytestConfigWarning -k fits_and_plays
	SCREENSHOTS=1 $(BIN)/pytest -m browser tests/e2e/test_fit.py -p no:asyncio \
		-W ignore::pytest.PytestConfigWarning -k "replay or leaderboard"
	SCREENSHOTS=1 $(BIN)/pytest -m browser tests/e2e/test_thumbs.py tests/e2e/test_offline.py \
		-p no:asyncio -W ignore::pytest.PytestConfigWarning -k "phone or offline"
	SCREENSHOTS=1 $(BIN)/pytest -m browser tests/e2e/test_looks.py -p no:asyncio \
		-W ignore::pytest.PytestConfigWarning
	SCREENSHOTS=1 $(BIN)/pytest -m browser tests/e2e/test_catalogue.py tests/e2e/test_rules_pictures.py \
		-p no:asyncio -W ignore::pytest.PytestConfigWarning

# The app's PNG icons drawn from our SVGs (frontend/static/frontend/icons/), in headless Chromium.
icons: $(VENV)/.installed-dev
	$(BIN)/python frontend/tools/icons.py

$(BIN)/python:
	$(PYTHON_BOOT) -m venv $(VENV)

# Every package comes from the lock files of requirements/ (make lock), each file checked
# against its hashes; the project itself is then installed without resolving anything.
INSTALL_LOCKED = $(BIN)/python -m pip install --require-hashes --no-deps -r
INSTALL_PROJECT = $(BIN)/python -m pip install --no-deps --no-build-isolation -e .

$(VENV)/.installed-run: requirements/main.txt | $(BIN)/python
	$(INSTALL_LOCKED) $<
	$(INSTALL_PROJECT)
	touch $@

$(VENV)/.installed-dev: requirements/dev.txt | $(BIN)/python
	$(INSTALL_LOCKED) $<
	$(INSTALL_PROJECT)
	touch $@ $(VENV)/.installed-run

# The lock files (docs/operations.md, "Dependencies"): the newest releases that pyproject.toml
# allows, resolved on PyPI alone (the machine's own pip configuration is set aside), each with
# the hashes of every file PyPI holds for it. requirements/all.txt resolves every extra at once;
# the others take their versions from it, so that the image, the tests and the benchmarks run
# the same releases. `make lock` upgrades every pin; `make lock UPGRADE=django` only that one
# (after a change to pyproject.toml, it keeps the pins that still fit).
UPGRADE ?= :all:
LOCK_ARGS = $(if $(filter :all:,$(UPGRADE)),--upgrade,--upgrade-package $(UPGRADE))
PIP_COMPILE = CUSTOM_COMPILE_COMMAND="make lock" PIP_CONFIG_FILE=/dev/null PIP_FIND_LINKS= \
	$(BIN)/pip-compile --quiet --generate-hashes --allow-unsafe --strip-extras \
	--no-emit-index-url --no-emit-find-links --index-url https://pypi.org/simple \
	--all-build-deps

lock: $(VENV)/.installed-dev
	$(PIP_COMPILE) $(LOCK_ARGS) --all-extras -o requirements/all.txt pyproject.toml
	$(PIP_COMPILE) -c requirements/all.txt -o requirements/main.txt pyproject.toml
	$(PIP_COMPILE) -c requirements/all.txt --extra dev -o requirements/dev.txt pyproject.toml
	$(PIP_COMPILE) -c requirements/all.txt --extra bench -o requirements/bench.txt pyproject.toml

# The restore drill on the database of DATABASE_URL (docs/operations.md, "Backups and restore"):
# pg_dump, pg_restore into a fresh database beside it, every result of every closed day
# re-verified there and every board compared with the original's; fails on any mismatch.
# DRILL_ARGS=--keep keeps the restored database, DRILL_ARGS="--dump FILE" the dump.
drill: $(VENV)/.installed-run
	$(BIN)/python manage.py drill $(DRILL_ARGS)

bench: $(VENV)/.installed-run
	$(BIN)/python benchmarks/engine.py

# Schemathesis over /api/schema/ against a live uvicorn (one worker: a CPython 3.11 threading bug
# bites with more). Fails on any 5xx or any answer that breaks the schema. Uses DATABASE_URL and
# REDIS_URL as set (the embedded SQLite otherwise); rate limits are lifted for the run. The
# server's log (tracebacks of any 5xx) goes to .venv/fuzz-server.log.
FUZZ_PORT ?= 8010
FUZZ_EXAMPLES ?= 100
FUZZ_THROTTLE := THROTTLE_MOVES_PLAYER=100000/min THROTTLE_MOVES_IP=100000/min \
	THROTTLE_GAMES_PLAYER=100000/min THROTTLE_GAMES_IP=100000/min \
	THROTTLE_AUTH_IP=100000/min THROTTLE_AUTH_IP_HOUR=100000/hour

fuzz: $(VENV)/.installed-dev
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py loadvariants
	@set -e; $(FUZZ_THROTTLE) $(BIN)/uvicorn config.asgi:application --host 127.0.0.1 \
		--port $(FUZZ_PORT) --log-level warning 2> $(VENV)/fuzz-server.log & server=$$!; \
	trap 'kill $$server' EXIT; \
	base=http://127.0.0.1:$(FUZZ_PORT); \
	token=$$($(BIN)/python -c 'import json, secrets, sys, time, urllib.request as u; \
	[time.sleep(0.2) for _ in range(50) if not __import__("socket").socket().connect_ex(("127.0.0.1", $(FUZZ_PORT))) == 0]; \
	r = u.Request(sys.argv[1] + "/api/auth/guest/", json.dumps({"nickname": "fuzz-" + secrets.token_hex(4)}).encode(), {"Content-Type": "application/json"}); \
	print(json.load(u.urlopen(r))["token"])' $$base); \
	$(BIN)/schemathesis run $$base/api/schema/?format=json -w 1 \
		--max-examples $(FUZZ_EXAMPLES) -H "Authorization: Token $$token" \
		--checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance

$(VENV)/.installed-bench: requirements/bench.txt | $(BIN)/python
	$(INSTALL_LOCKED) $<
	$(INSTALL_PROJECT)
	touch $@ $(VENV)/.installed-run

# The load benchmark against PostgreSQL and Redis (BENCH_DATABASE_URL, BENCH_REDIS_URL,
# BENCH_PORT): closed loop, players at a person's pace (N = 250 to 4,000), the rollover, watchers
# and idle sockets, each beside its floor (docs/benchmarks.md); about 20 minutes.
# LOAD_ARGS=--quick for a smoke run of a few minutes; LOAD_ARGS="--skip daily idle" and the like.
load: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/load.py $(LOAD_ARGS)

# An hour of 200 players at a person's pace, the workers' memory after every minute
# (docs/benchmarks.md, "Memory over an hour").
soak: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/load.py --skip moves paced rollover daily idle --no-profile \
		--soak $(or $(SOAK_MINUTES),60) --soak-players $(or $(SOAK_PLAYERS),200)

board: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/board.py $(BOARD_ARGS)

# In-process CPU per move: the move service alone, then the game socket (docs/scaling.md).
movepath: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/movepath.py $(MOVEPATH_ARGS)

# The solver against its targets: decided shares and positions per second on bench-0 … bench-99,
# for every daily variant shipped (about 35 minutes on 2 cores: two variants at a time, each deal
# 10 s of CPU; Spider's undecided deals take their whole budget).
# The cost of one HTTP request (rate, p50/p99, worker CPU a request) beside a bare echo app, on
# one worker (benchmarks/request_cost.py, docs/benchmarks.md).
http-bench: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/request_cost.py

solver-bench: $(VENV)/.installed-run
	$(BIN)/python benchmarks/solver.py --deals 100 --seconds 10 --jobs 2

# The win-rate study (about 30 minutes on 2 cores: two variants at a time); rewrites the report
# at the top of docs/winrates.md and keeps its hand-written sections.
winrates: $(VENV)/.installed-run
	$(BIN)/python benchmarks/winrates.py --deals 50 --seconds 30 --jobs 2

# The difficulty steps of every variant, from the solver's effort over 100 practice deals each
# (about 40 minutes on two cores): writes games/engine/difficulty.json (docs/winrates.md).
difficulty: $(VENV)/.installed-run
	$(BIN)/python benchmarks/difficulty.py --deals 100 --nodes 30000 --jobs 2 \
		--variants caprice castile quadruple-canfield capricieuse canfield beleaguered-castle \
			klondike-draw-3 freecell spider-2-suits
	$(BIN)/python benchmarks/difficulty.py --deals 100 --nodes 300000 --jobs 2 --variants box-kite

clean:
	rm -rf $(VENV) node_modules staticfiles .pytest_cache .ruff_cache .mypy_cache
