# scopa-sim: every command a developer needs. `make simulate` and `make test` set up everything.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install test bench lint simulate tournament report clean

# The project's own bytecode too, at every make: the editable install leaves it out, and where
# PYTHONDONTWRITEBYTECODE is set each process compiled the package's modules again (about 0.1 s
# of every command, worker and test subprocess). compileall rewrites only what an edit made
# stale, in a few hundredths of a second when nothing did.
install: $(STAMP)
	@$(BIN)/python -m compileall -q scopa_sim analyses examples > /dev/null

# Reinstall only when the project description (or this recipe) changes; the package itself is
# installed editable. uv installs the dependencies in seconds where pip takes minutes on a fresh
# machine (same resolver inputs, same versions); when uv cannot be had, pip does the same install.
# Both write the dependencies' bytecode at install time (pip by default, uv with
# --compile-bytecode): where PYTHONDONTWRITEBYTECODE is set, as on this project's machines, every
# process would otherwise compile numba's, polars' and the rest's sources again when it starts,
# about 1.2 s for each command, worker and test subprocess.
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

# JSON lines on stdout (save them: `make bench > bench.jsonl`; chart: bench/chart.py). The
# native yardstick is built first when there is a C compiler; without one its row says skipped.
NATIVE := build/native_scopa
bench: install
	@if command -v $(CC) >/dev/null 2>&1; then $(MAKE) --no-print-directory $(NATIVE) >&2; \
	else echo "bench: no C compiler ($(CC)): the native row is skipped" >&2; fi
	@$(BIN)/python -m scopa_sim.bench $(BENCH_ARGS)

# The flags match NATIVE_FLAGS in scopa_sim/bench.py (-march=native was not clearly faster).
$(NATIVE): bench/native_scopa.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -Wall -Wextra -o $@ $< -lm

lint: install
	$(BIN)/ruff check scopa_sim tests analyses
	$(BIN)/ruff format --check scopa_sim tests analyses

simulate: install
	$(BIN)/scopa-sim simulate --config configs/default.toml

# The default tournaments of configs/tournaments.toml (the page "Who plays best?"): one
# `scopa-sim tournament` command each, printed before it runs (`python -m analyses.who_plays_best
# --commands` lists them). Only tournaments whose folder is not complete are run (`--missing`):
# a complete one is neither played nor re-read.
tournament: install
	@cmds="$$($(BIN)/python -m analyses.who_plays_best --commands --missing --data data)" || exit 1; \
	printf '%s\n' "$$cmds" | while IFS= read -r cmd; do \
		[ -n "$$cmd" ] || continue; echo "$$cmd"; sh -c "$$cmd" < /dev/null || exit 1; \
	done

# The tournaments of configs/luck_skill.toml (the page "How much is luck, how much is skill?"),
# run the same way (`python -m analyses.luck_skill --commands` lists them); classic-deals is
# shared with `tournament` and only re-read when complete.
.PHONY: luck-skill
luck-skill: install
	@cmds="$$($(BIN)/python -m analyses.luck_skill --commands --missing --data data)" || exit 1; \
	printf '%s\n' "$$cmds" | while IFS= read -r cmd; do \
		[ -n "$$cmd" ] || continue; echo "$$cmd"; sh -c "$$cmd" < /dev/null || exit 1; \
	done

# Reports from the default data; `simulate`, `tournament` and `luck-skill` first play whatever is
# missing (a no-op when done).
report: simulate tournament luck-skill
	$(BIN)/python -m analyses --data data --out reports

clean:
	rm -rf $(VENV) data reports/*.html .pytest_cache .hypothesis

# Headless Chromium for tests/test_html.py (Debian's package); installed only when missing.
.PHONY: browser
browser:
	@if [ ! -x /usr/bin/chromium ]; then \
		SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$SUDO apt-get update && \
		$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium; \
	fi
