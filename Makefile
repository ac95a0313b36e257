# Two commands for a fresh machine with Python 3.11+: `make serve` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
HASH := $(shell sha1sum pyproject.toml | cut -c1-12)
STAMP := $(VENV)/.installed-$(HASH)
SERVE_STAMP := $(VENV)/.serving-$(HASH)
# The contract checks' npm tools (Redocly, Spectral, openapi-typescript, tsc), pinned by the lock file.
NPM_STAMP := contract/node_modules/.installed-$(shell sha1sum contract/package-lock.json | cut -c1-12)
# The JavaScript engine's dev dependencies (fast-check, typescript), pinned by its own lock file.
JS_STAMP := clients/js/node_modules/.installed-$(shell sha1sum clients/js/package-lock.json | cut -c1-12)
AXE := node_modules/axe-core/axe.min.js

.PHONY: serve test quick lint openapi contract bench clean stack stack-down

# What serving needs and nothing more (no test or bench extras).
$(SERVE_STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e .
	rm -f $(VENV)/.serving-* && touch $@

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,bench,traces]'
	rm -f $(VENV)/.installed-* $(VENV)/.serving-* && touch $@ $(SERVE_STAMP)

$(NPM_STAMP): contract/package.json contract/package-lock.json
	cd contract && npm ci --no-audit --no-fund --loglevel=error
	rm -f contract/node_modules/.installed-* && touch $@

serve: $(SERVE_STAMP)  ## set up, migrate the SQLite default and serve on http://127.0.0.1:8000 (PORT, BIND)
	$(BIN)/flask --app service db upgrade
	$(BIN)/gunicorn -c gunicorn.conf.py 'service:create_app()'

# axe-core (pinned in package-lock.json) for the accessibility test of the pages in a browser
$(AXE): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

$(JS_STAMP): clients/js/package.json clients/js/package-lock.json
	cd clients/js && npm ci --no-audit --no-fund --loglevel=error
	rm -f clients/js/node_modules/.installed-* && touch $@

contract: $(NPM_STAMP)  ## install the contract checks' npm tools (contract/package-lock.json)

test: $(STAMP) $(NPM_STAMP) $(JS_STAMP) $(AXE)  ## set up and run the whole suite (SQLite and PostgreSQL, contract checks, the JS engine)
	$(BIN)/ruff check service tests bench deploy harness
	$(BIN)/pytest

# The quick loop while developing (under a minute): engine, store, use cases and API on SQLite,
# without the slow, browser, fault and PostgreSQL tests (their markers: tests/conftest.py).
QUICK_TESTS ?= tests/engine tests/store tests/usecases tests/api tests/structure tests/telemetry
quick: $(STAMP)  ## the quick loop: engine, store, use cases and API on SQLite; not slow, browser or faults
	TEST_DATABASES=sqlite $(BIN)/pytest -q -m "not slow and not browser and not faults and not postgresql" \
		$(QUICK_TESTS)

lint: $(STAMP)
	$(BIN)/ruff check service tests bench deploy harness

# The production shape locally: nginx on STACK_PORT in front of two app instances (gunicorn
# masters on STACK_PORT+1 and +2) on PostgreSQL and Redis; deploy/stack.py, docs/DEPLOYMENT.md.
STACK_PORT ?= 8080
STACK_DIR ?= .stack
STACK_DATABASE_URL ?= postgresql+psycopg://postgres@127.0.0.1:5432/solitaire_stack
STACK_REDIS_URL ?= redis://127.0.0.1:6379/0

stack: $(STAMP)  ## migrate, start nginx + 2 app instances; returns once /readyz answers through nginx
	$(BIN)/python deploy/stack.py up --port $(STACK_PORT) --run-dir $(STACK_DIR) \
		--database-url $(STACK_DATABASE_URL) --redis $(STACK_REDIS_URL)

stack-down:  ## stop everything `make stack` started
	$(BIN)/python deploy/stack.py down --run-dir $(STACK_DIR)

openapi: $(STAMP)  ## regenerate the checked-in openapi.yaml from the code
	$(BIN)/flask --app service openapi-yaml openapi.yaml

bench: $(STAMP)  ## the benchmarks that print ratios (engine, API vs its floor, solver, leaderboards): bench/README.md
	$(BIN)/python bench/engine --quick
	$(BIN)/python bench/engine_js --quick
	$(BIN)/python bench/api
	$(BIN)/python bench/api --proxy --databases postgresql --quick
	$(BIN)/python bench/capacity
	$(BIN)/python bench/solver --deals 200
	$(BIN)/python bench/leaderboard --games 100000

clean:
	rm -rf $(VENV) node_modules instance .pytest_cache .hypothesis contract/node_modules clients/js/node_modules .stack
