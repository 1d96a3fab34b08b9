# scopa-sim: every command a developer needs. `make simulate` and `make test` set up everything.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install test bench lint simulate tournament report clean

# Byte-compile the project: the editable install does not, and PYTHONDONTWRITEBYTECODE may be set.
install: $(STAMP)
	@$(BIN)/python -m compileall -q scopa_sim analyses examples > /dev/null

# Editable install, redone when pyproject.toml or this file changes; uv, else pip; with bytecode.
EXTRAS := .[dev,dask]
$(STAMP): pyproject.toml Makefile
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@if $(BIN)/python -m pip install --quiet --disable-pip-version-check uv; then \
		$(BIN)/uv pip install --python $(BIN)/python --quiet --compile-bytecode -e '$(EXTRAS)' \
			--config-settings editable_mode=compat; \
	else \
		echo "install: uv is not available, installing with pip (slower)" >&2; \
		$(BIN)/python -m pip install --quiet -e '$(EXTRAS)' --config-settings editable_mode=compat; \
	fi
	@touch $(STAMP)

test: install
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q

# JSON lines on stdout (`make bench > bench.jsonl`); the native C row is skipped without a compiler.
NATIVE := build/native_scopa
bench: install
	@if command -v $(CC) >/dev/null 2>&1; then $(MAKE) --no-print-directory $(NATIVE) >&2; \
	else echo "bench: no C compiler ($(CC)): the native row is skipped" >&2; fi
	@$(BIN)/python -m bench $(BENCH_ARGS)

# The flags match NATIVE_FLAGS in bench/native.py.
$(NATIVE): bench/native_scopa.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -Wall -Wextra -o $@ $< -lm

# Plant each fault of tests/mutation/*.toml in a scratch copy and report which the tests kill
# (a check of the tests; long: every fault runs the suite). MUTANTS_ARGS: see tests/mutation/run.py.
.PHONY: mutants
mutants: install
	$(BIN)/python -m tests.mutation.run $(MUTANTS_ARGS)

lint: install
	$(BIN)/ruff check scopa_sim tests analyses bench examples
	$(BIN)/ruff format --check scopa_sim tests analyses bench examples

simulate: install
	$(BIN)/scopa-sim simulate --config configs/default.toml

# configs/tournaments.toml ("Who plays best?"): each incomplete tournament, printed, then run.
tournament: install
	@cmds="$$($(BIN)/python -m analyses.who_plays_best --commands --missing --data data)" || exit 1; \
	printf '%s\n' "$$cmds" | while IFS= read -r cmd; do \
		[ -n "$$cmd" ] || continue; echo "$$cmd"; sh -c "$$cmd" < /dev/null || exit 1; \
	done

# configs/luck_skill.toml ("How much is luck, how much is skill?"), run the same way.
.PHONY: luck-skill
luck-skill: install
	@cmds="$$($(BIN)/python -m analyses.luck_skill --commands --missing --data data)" || exit 1; \
	printf '%s\n' "$$cmds" | while IFS= read -r cmd; do \
		[ -n "$$cmd" ] || continue; echo "$$cmd"; sh -c "$$cmd" < /dev/null || exit 1; \
	done

# The HTML reports; the data targets first play whatever is missing (a no-op when done).
report: simulate tournament luck-skill
	$(BIN)/python -m analyses --data data --out reports

clean:
	rm -rf $(VENV) data reports/*.html .pytest_cache .hypothesis

# Headless Chromium (Debian's package) for the HTML tests; installed only when missing.
.PHONY: browser
browser:
	@if [ ! -x /usr/bin/chromium ]; then \
		SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$SUDO apt-get update && \
		$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium; \
	fi
