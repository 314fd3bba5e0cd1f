# One entry point for everything: `make run` (the live demo) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
STAMP := $(VENV)/.installed
RUN_STAMP := $(VENV)/.installed-run
PYPROJECTS := engine/pyproject.toml protocol/pyproject.toml sdk/pyproject.toml service/pyproject.toml harness/pyproject.toml \
  learn/pyproject.toml

.PHONY: all venv test lint typecheck pytest pytest-source pytest-compiled pytest-default compiled bench bench-engine bench-bots bench-expert bench-expert-clock bench-expert-ladders bench-playouts bench-expert-worlds bench-builtin-workers bench-service bench-arena \
  bench-ladder bench-ladder-speed bench-seat bench-streams bench-new-streams bench-flood bench-sandbox bench-tournament bench-kits bench-cli bench-install run clean

all: test

# The virtual environment is filled by uv from uv.lock, the one lock of the workspace (the root pyproject.toml):
# every machine installs the same versions with the same hashes, every day. uv itself is pinned and comes from
# PyPI with the system's pip; it fetches and installs in parallel (make bench-install measures the wait for
# make run's first deal). It never downloads a Python: the venv is made with $(PYTHON).
UV_VERSION := 0.13.9
UV := $(VENV)/uv/bin/uv
UV_RUN := UV_PROJECT_ENVIRONMENT=$(VENV) UV_PYTHON=$(PY) UV_PYTHON_DOWNLOADS=never $(UV)
LOCK_STALE := error: uv.lock is out of date with the pyproject.toml files: run 'make lock' and commit uv.lock

# Its recipes, and make run's, say what they do in a line instead of echoing their commands: make run's first
# screen is the reader's.
$(UV):
	@test -x $(PY) || $(PYTHON) -m venv --without-pip $(VENV)
	@echo "installing uv $(UV_VERSION), which fills $(VENV) from uv.lock"
	@$(PYTHON) -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --target $(VENV)/uv \
	  'uv==$(UV_VERSION)'

## lock: re-resolve uv.lock after a pyproject.toml changed (`make lock LOCK_ARGS=--upgrade` takes the newest releases).
## check-lock: fail with one line when a pyproject.toml changed and uv.lock was not refreshed.
.PHONY: lock check-lock
lock: | $(UV)
	$(UV_RUN) lock $(LOCK_ARGS)

check-lock: | $(UV)
	@$(UV_RUN) lock --check --offline --quiet 2>/dev/null || { echo "$(LOCK_STALE)" >&2; exit 1; }

# Everything: the six distributions with their test tools, Ray, and the learners' PettingZoo and OpenSpiel,
# compiled to bytecode as they are installed (a machine may forbid writing it later, PYTHONDONTWRITEBYTECODE, and
# then every command would compile its imports again: make bench-cli shows the cost).
$(STAMP): $(PYPROJECTS) pyproject.toml uv.lock | $(UV) check-lock
	$(UV_RUN) sync --locked --quiet --all-packages --all-extras --compile-bytecode
	touch $(RUN_STAMP) $@

# Only what `make run` needs: the harness and what it imports (no test tools, no Ray, no learners), and what
# compiling the engine needs (the root's `compile` group: mypy, setuptools); --inexact keeps whatever a fuller
# install put there.
$(RUN_STAMP): $(PYPROJECTS) pyproject.toml uv.lock | $(UV) check-lock
	@echo "make run: installing what the server and the bots need into $(VENV) (the first time only)"
	@$(UV_RUN) sync --locked --quiet --inexact --package president-harness --compile-bytecode
	@$(UV_RUN) sync --locked --quiet --inexact --only-group compile
	@touch $@

lint: $(STAMP)
	$(BIN)/ruff check engine/src engine/setup.py protocol/src sdk/src sdk/setup.py service/src harness/src learn/src tests benchmarks tools examples/learning

typecheck: $(STAMP)
	$(BIN)/mypy

# Two workers at least (pytest-xdist): most tests wait on servers and subprocesses, and the README's commands
# (tests/docs, the longest) run beside the rest; --dist loadgroup keeps a kit's tests on one worker, which builds the
# kit once.
PYTEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ $$n -lt 2 ] && n=2; echo $$n)

## compiled: the engine and the SDK built as wheels (build/wheels) by their setup.py, which compiles the engine's hot
## modules and the expert's search with mypyc and its playouts in C where a C compiler and the Python headers are, and
## installed into the venv in place of their editable source (the venv's own setuptools and mypy, uv.lock's: no
## build isolation).  Where the wheels come out pure Python the editable source stays, and the recipe says why;
## REQUIRE_COMPILED=1 (CI) makes that an error.  The stamp holds which: compiled or source.
COMPILED := $(VENV)/.installed-compiled
WHEELS := build/wheels
COMPILED_SOURCES := engine/setup.py sdk/setup.py $(wildcard engine/src/president_engine/*.py sdk/src/president_sdk/*.py \
  sdk/src/president_sdk/*/*.py sdk/src/president_sdk/*/*/*.py sdk/src/president_sdk/*/*/*.c)
UV_BUILD := $(UV_RUN) build --wheel --no-build-isolation --out-dir $(WHEELS)
# True when the stamp is newer than everything the wheels are built from (make -q cannot say: check-lock is phony).
COMPILED_FRESH = [ -f $(COMPILED) ] && [ -z "$$(find $(RUN_STAMP) $(COMPILED_SOURCES) -newer $(COMPILED) | head -1)" ]

# One build at a time (build/compiled.lock: make run's in the background, a test lane's): one that finds the stamp
# newer than every prerequisite once it holds the lock has nothing to do.
$(COMPILED): $(RUN_STAMP) $(COMPILED_SOURCES)
	@mkdir -p build && exec 9>build/compiled.lock && flock 9 && \
	if $(COMPILED_FRESH); then exit 0; fi && \
	rm -rf $(WHEELS) && mkdir -p $(WHEELS) && \
	echo "compiling the engine and the expert's search into wheels ($(WHEELS), about a minute)" && \
	{ { $(UV_BUILD) --package president-engine && $(UV_BUILD) --package president-sdk; } >$(WHEELS)/build.log 2>&1 \
	  || { tail -20 $(WHEELS)/build.log; echo "error: building the wheels failed; see $(WHEELS)/build.log" >&2; \
	       exit 1; }; } && \
	grep '^president-' $(WHEELS)/build.log; \
	if ls $(WHEELS)/*-none-any.whl >/dev/null 2>&1; then \
	  if [ -n "$(REQUIRE_COMPILED)" ]; then echo "error: REQUIRE_COMPILED=1 but the wheels are pure Python" >&2; \
	    exit 1; fi; \
	  $(UV) pip install --quiet --offline --no-deps --no-build-isolation --reinstall --python $(PY) -e ./engine \
	    -e ./sdk && echo "the engine and the SDK stay the editable source" && echo source > $@; \
	else $(UV) pip install --quiet --offline --no-deps --reinstall --python $(PY) $(WHEELS)/*.whl && \
	  echo "installed the compiled engine and SDK into $(VENV)" && echo compiled > $@; fi

compiled: $(COMPILED)

## venv: everything installed, the engine and the SDK as their compiled wheels where they can be (else the source).
venv: $(STAMP) $(COMPILED)

## pytest: every test, in three runs:
## pytest-source: the rules reference suites (tests/engine, tests/golden, and the search bot's: tests/sdk/test_expert.py,
## tests/sdk/test_playout.py, its C playouts against the engine, tests/sdk/test_next_deal.py) on the pure-Python
## source (engine/src and sdk/src first on PYTHONPATH, whatever the venv holds), the reference; with the engine's
## wheel test (tests/engine/test_wheel.py builds its own wheels: once).
## pytest-compiled: the same suites again on the compiled wheels installed in the venv (skipped with a message when
## there are none).
## pytest-default: every other test (docs commands, hosting and the sandbox, tournaments, arena, UECda, web, service,
## SDK) on the default install as `make venv` leaves it: the compiled wheels where they could be made, else the source.
RULES_TESTS := tests/engine tests/golden tests/sdk/test_expert.py tests/sdk/test_playout.py tests/sdk/test_next_deal.py
# Tests of the source itself, on the source only: the documented signatures (a compiled function keeps no
# annotations) and the guard's answers made of interpreted subclasses of the engine's classes (which a compiled
# class refuses before the guard sees them).
SOURCE_TESTS := tests/docs/test_sdk_readme_helpers.py tests/sdk/test_guard.py
SOURCE_PATH := PYTHONPATH=$(CURDIR)/engine/src:$(CURDIR)/sdk/src
PYTEST_RUN := $(BIN)/pytest -q -n $(PYTEST_WORKERS) --dist loadgroup

pytest: pytest-source pytest-compiled pytest-default

pytest-source: $(STAMP)
	$(SOURCE_PATH) $(SOURCE_NICE) $(PYTEST_RUN) --engine-build=source $(RULES_TESTS) $(SOURCE_TESTS)

pytest-compiled: $(COMPILED)
	@if grep -qx compiled $(COMPILED); then \
	  echo "$(PYTEST_RUN) --engine-build=compiled $(RULES_TESTS) --ignore=tests/engine/test_wheel.py"; \
	  $(PYTEST_RUN) --engine-build=compiled $(RULES_TESTS) --ignore=tests/engine/test_wheel.py; \
	else echo "pytest-compiled: skipped (no compiled wheels: make compiled says why)"; fi

pytest-default: $(COMPILED)
	$(PYTEST_RUN) --durations=25 $(addprefix --ignore=,$(RULES_TESTS) $(SOURCE_TESTS))

## test: everything CI checks: lint, types, and every test (the rules tests on both builds of the engine).
## Two lanes side by side (-j2): the compile, then the default install's tests (the longest run) as soon as it is
## made; beside them the rules suites on the source (niced, off that path), the checks, and the rules suites on the
## compiled build last.
CHECKS := pytest-source lint typecheck buf-lint check-protos check-api-docs buf-breaking pytest-compiled

test:
	@$(MAKE) --no-print-directory -j2 test-default test-checks SOURCE_NICE="nice -n 10"

.PHONY: test-default test-checks
test-default:
	@$(MAKE) --no-print-directory $(COMPILED)
	@$(MAKE) --no-print-directory pytest-default

test-checks:
	@$(MAKE) --no-print-directory $(CHECKS)

## protos: regenerate the Python code of the president.v1 contract (committed, in protocol/).
## check-protos: fail when the committed generated code is not what `make protos` writes.
## buf-lint: the contract's style and comment rules (protos/buf.yaml).
.PHONY: protos check-protos buf-lint
PROTO_SRC := protos/president/v1/president.proto
PROTO_OUT := protocol/src/president_protocol/v1
PROTO_CHECK := build/check-protos

# $(call gen-protos,DIR): generate president.v1 into DIR as the package president_protocol.v1.
# protoc writes the files under president/v1/ (the proto's path) and the absolute import
# `from president.v1 import president_pb2` into the gRPC modules; the files are moved up
# and sed makes the import relative, so the package works where it is installed.
define gen-protos
	rm -rf $(1) $(1).gen
	mkdir -p $(1) $(1).gen
	$(PY) -m grpc_tools.protoc -I protos \
	  --plugin=protoc-gen-mypy=$(BIN)/protoc-gen-mypy --plugin=protoc-gen-mypy_grpc=$(BIN)/protoc-gen-mypy_grpc \
	  --python_out=$(1).gen --grpc_python_out=$(1).gen --mypy_out=$(1).gen --mypy_grpc_out=$(1).gen $(PROTO_SRC)
	mv $(1).gen/president/v1/* $(1)/
	rm -rf $(1).gen
	sed -i.orig 's/^from president\.v1 import president_pb2 /from . import president_pb2 /' \
	  $(1)/president_pb2_grpc.py $(1)/president_pb2_grpc.pyi
	rm $(1)/*.orig
	echo '"""Generated from protos/president/v1/president.proto by `make protos`; do not edit."""' > $(1)/__init__.py
endef

protos: $(STAMP)
	$(call gen-protos,$(PROTO_OUT))

check-protos: $(STAMP)
	$(call gen-protos,$(PROTO_CHECK))
	@diff -r -x __pycache__ $(PROTO_OUT) $(PROTO_CHECK) >/dev/null || { \
	  diff -r -x __pycache__ $(PROTO_OUT) $(PROTO_CHECK) | head -20; \
	  echo "error: $(PROTO_OUT) is out of date with $(PROTO_SRC): run 'make protos' and commit the result" >&2; \
	  exit 1; }
	rm -rf $(PROTO_CHECK)

buf-lint: $(STAMP)
	cd protos && ../$(BIN)/buf lint

## api-docs: write docs/api.md (the API reference) from the comments in protos/.
## check-api-docs: fail when the committed docs/api.md is not what `make api-docs` writes.
## buf-breaking: fail when protos/ breaks the contract of the previous commit (skipped without one).
## node-deps: install the Node example bot's packages (examples/node, from package-lock.json).
.PHONY: api-docs check-api-docs buf-breaking node-deps
API_DOCS := docs/api.md
API_CHECK := build/check-api-docs

# $(call gen-api-docs,FILE): the API reference, generated from the proto's comments, into FILE.
define gen-api-docs
	mkdir -p $(API_CHECK)
	$(PY) -m grpc_tools.protoc -I protos --include_source_info \
	  --descriptor_set_out=$(API_CHECK)/president.binpb $(PROTO_SRC)
	$(PY) tools/gen_api_docs.py $(API_CHECK)/president.binpb $(1)
endef

api-docs: $(STAMP)
	$(call gen-api-docs,$(API_DOCS))
	rm -rf $(API_CHECK)

check-api-docs: $(STAMP)
	$(call gen-api-docs,$(API_CHECK)/api.md)
	@diff -u $(API_DOCS) $(API_CHECK)/api.md >/dev/null || { \
	  diff -u $(API_DOCS) $(API_CHECK)/api.md | head -20; \
	  echo "error: $(API_DOCS) is out of date with $(PROTO_SRC): run 'make api-docs' and commit the result" >&2; \
	  exit 1; }
	rm -rf $(API_CHECK)

buf-breaking: $(STAMP)
	tools/buf_breaking.sh $(BIN)/buf

node-deps: examples/node/node_modules/.package-lock.json

## go-kit: build the Go kit's bot, examples/go/bot, from protos/ (Debian's Go packages: examples/go/README.md).
.PHONY: go-kit
go-kit:
	$(MAKE) -C examples/go

## cpp-kit: build the C++ kit's bot, examples/cpp/bot, from protos/ (Debian's gRPC packages: examples/cpp/README.md).
.PHONY: cpp-kit
cpp-kit:
	$(MAKE) -C examples/cpp

## java-kit: build the Java kit's bot, examples/java/bot, from protos/ (Debian's Java packages: examples/java/README.md).
.PHONY: java-kit
java-kit:
	$(MAKE) -C examples/java

examples/node/node_modules/.package-lock.json: examples/node/package-lock.json
	cd examples/node && npm ci --no-audit --no-fund

## bench: throughput figures (medians of 5 runs), and whether the expert keeps its clock (issue 28's bar); not a test.
bench: bench-engine bench-bots bench-service bench-arena bench-ladder bench-ladder-speed bench-seat bench-streams \
  bench-new-streams bench-flood bench-sandbox bench-tournament bench-expert-clock bench-builtin-workers bench-kits \
  bench-uecda bench-playouts bench-expert-worlds bench-expert-ladders bench-cli

## bench-engine: the engine's speed on its source (PYTHONPATH) and on the compiled wheels the venv holds.
bench-engine: $(STAMP) $(COMPILED)
	$(SOURCE_PATH) $(PY) benchmarks/engine_bench.py
	@if grep -qx compiled $(COMPILED); then echo "$(PY) benchmarks/engine_bench.py"; $(PY) benchmarks/engine_bench.py; fi

bench-bots: $(STAMP)
	$(PY) benchmarks/bots_bench.py --jobs 2

## bench-expert: the expert's bar: hard -> expert on duplicate boards in every preset and at 5 players (long: ~40 min on 2 cores).
bench-expert: $(STAMP)
	$(PY) benchmarks/bots_bench.py --deals 0 --expert-boards 8 --jobs 2

## bench-playouts: the expert's playouts a second, its C playout against its Python policy on the engine, every preset.
bench-playouts: $(STAMP) $(COMPILED)
	$(PY) benchmarks/playout_bench.py

## bench-expert-worlds: how well the expert's worlds place the hidden cards at its decisions, every preset; then what
## reading them perfectly would be worth (an oracle's lead over hard beside the expert's, 10 boards, ~5 min).
bench-expert-worlds: $(STAMP) $(COMPILED)
	$(PY) benchmarks/expert_worlds.py
	$(PY) benchmarks/expert_worlds.py --oracle

## bench-expert-ladders: issue 28's ladder bars as `president ladder` plays them: 240 duplicate matches of the built-in
## levels as shipped in each preset (examples/expert-ladders/), gated on expert > hard, then the expert against its
## search of before (deeper.toml; ~30 min on 2 cores).
bench-expert-ladders: $(STAMP) $(COMPILED)
	@status=0; for preset in cardverse italian norwegian daifugo; do \
	  echo "$(BIN)/president ladder examples/expert-ladders/$$preset.toml --expect \"expert > hard\""; \
	  $(BIN)/president ladder examples/expert-ladders/$$preset.toml --expect "expert > hard" || status=1; \
	done; \
	echo "$(BIN)/president ladder examples/expert-ladders/deeper.toml --expect \"expert > before\""; \
	$(BIN)/president ladder examples/expert-ladders/deeper.toml --expect "expert > before" || status=1; \
	exit $$status

## bench-expert-clock: the expert's time per searched decision at the shipped budget, every preset, unloaded and with the
## other core busy (medians of 3 runs, ~15 min); fails when a 99th percentile is above 1.2x the budget.
bench-expert-clock: $(STAMP)
	$(PY) benchmarks/expert_clock.py

## bench-builtin-workers: four built-in experts on Sessions, on one loop against worker processes: wall time and
## cores used for the same matches (medians of 3 runs).
bench-builtin-workers: $(STAMP)
	$(PY) benchmarks/builtin_workers_bench.py

## bench-sandbox: the sandbox of hosted bots: start per process, memory per bot, a match of jailed bots against plain
## ones, and each bot's share of a match's thinking time beside a spinning jail (needs bubblewrap).
bench-sandbox: $(STAMP)
	$(PY) benchmarks/sandbox_bench.py

## bench-tournament: a 64-entrant Swiss of 7 rounds at tables of 4 with duplicate boards, built-in bots as entrants:
## wall time and server CPU per match against the same matches run as a ladder over a server, as a ratio (medians of 3).
bench-tournament: $(STAMP)
	$(PY) benchmarks/tournament_bench.py

## bench-uecda: bridge A's ms a game (on the engine with five C contest clients over TCP, the median of 3 runs) and its
## ratio to the reference server's 7 ms a game, then with Python clients and on a server of ours (issue 45); the
## expert's points a game against four easy contest clients (issue 25); bridge B's
## builtin:hard and builtin:expert through 1,000-game matches against the reference server's tables (issue 45).
bench-uecda: $(STAMP)
	$(PY) benchmarks/uecda_bench.py

## bench-kits: each starter kit's build from a clean copy and its bot's move round trip, beside the Python SDK's (issue 26).
bench-kits: $(STAMP)
	$(PY) benchmarks/kits_bench.py

bench-service: $(STAMP)
	$(PY) benchmarks/service_bench.py

## bench-cli: the CPU of one-RPC `president` commands against a running server, beside `python -c pass` (issue 44).
bench-cli: $(STAMP)
	$(PY) benchmarks/cli_bench.py

## bench-install: a fresh clone's `make run`, to the first deal shown (downloads everything; not in `make bench`).
bench-install:
	$(PYTHON) benchmarks/first_match_bench.py

bench-arena: $(STAMP)
	$(PY) benchmarks/arena_bench.py

bench-ladder: $(STAMP)
	$(PY) benchmarks/ladder_formats.py

## bench-ladder-speed: messages per move by transport; networked ladders against in-process, a command bot against a built-in.
bench-ladder-speed: $(STAMP)
	$(PY) benchmarks/session_messages.py
	$(PY) benchmarks/ladder_speed.py

## bench-seat: the seat protocol by transport (Play, Session; SDK and bare): a move's round trip, server memory per
## live match and CPU per move, each beside a raw gRPC floor measured in the same run (docs/scaling.md).
bench-seat: $(STAMP)
	$(PY) benchmarks/seat_bench.py

## bench-streams: how Play streams end (issue 27 item 11): the count of each final status of timed matches' streams
## whose seats answer near the deadline, and of streams as the server drains (medians of 3 runs, ~2 min).
bench-streams: $(STAMP)
	$(PY) benchmarks/stream_status_bench.py

## bench-new-streams: new Play streams while 200 matches play (issue 27 item 10): time to Welcome (median, p90, max)
## and how each new stream ends, one new match at a time and in a burst of 400 (medians of 3 runs, ~4 min).
bench-new-streams: $(STAMP)
	$(PY) benchmarks/new_streams_bench.py

## bench-flood: one account floods (a Session that never reads, unary calls, connections and streams past the bounds)
## beside honest matches over Sessions: their round trips before and during, server RSS, what the flooder was answered.
bench-flood: $(STAMP)
	$(PY) benchmarks/flood_bench.py

## run: the main job: a server on localhost, a live match of built-in bots, then a seat for your bot.
## Where the compiled wheels are missing or older than the source, they are built and installed in the background
## meanwhile (`make compiled`, niced, under a lock, its output in build/compiled.log): this demo runs on the editable
## source, and the commands started after the install on the compiled build.
run: $(RUN_STAMP)
	@mkdir -p run build
	@$(COMPILED_FRESH) || { \
	  echo "president: compiling the engine in the background (build/compiled.log); commands started after it use it"; \
	  setsid nice -n 19 $(MAKE) --no-print-directory $(COMPILED) \
	    >build/compiled.log 2>&1 </dev/null & }
	@$(BIN)/president demo --db run/president.db

clean:
	rm -rf $(VENV) build engine/build sdk/build .pytest_cache .mypy_cache .ruff_cache .hypothesis
