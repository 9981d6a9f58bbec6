# `make run`: set up .venv with what solving needs, solve Leduc hold'em with CFR+ and show the result.
# `make test`: add every extra (torch, Ray, OpenSpiel, the web server, Playwright), Chromium, `make lint`, then the
# whole suite (tests/test_docs.py builds the documentation site too).
# `make lint`: ruff (style and import order) and mypy (types), as pyproject.toml's [tool.ruff] and [tool.mypy] set them.
# `make docs`: the documentation site (mkdocs.yml, docs/site/) into site/, warnings as errors: open site/index.html
# (search works from the file). `make docs-serve`: the same site on http://127.0.0.1:8000, rebuilt on every edit.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.cfrlab-installed
ALL_STAMP := $(VENV)/.cfrlab-all-installed
# The CPU build of PyTorch; override (e.g. TORCH=torch) to take another build.
TORCH ?= torch==2.13.0
OUT ?= out

.PHONY: setup setup-all run lint test browser bench gallery docs docs-serve clean

setup: $(STAMP)

setup-all: $(ALL_STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $(STAMP)

$(ALL_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet "$(TORCH)"
	$(BIN)/python -m pip install --quiet -e ".[all]"
	touch $(ALL_STAMP)

run: $(STAMP)
	mkdir -p $(OUT)
	$(BIN)/cfrlab solve leduc --algo cfr+ --iterations 1000 \
		--out $(OUT)/leduc-cfr+.npz --log $(OUT)/leduc-cfr+.jsonl --plot $(OUT)/leduc-cfr+.png
	@echo "cfrlab is installed in $(VENV): run '$(BIN)/cfrlab --help', or 'source $(BIN)/activate' and then 'cfrlab --help'"

lint: $(ALL_STAMP)
	$(BIN)/python -m ruff check cfrlab tests benchmarks
	$(BIN)/python -m mypy

test: $(ALL_STAMP) browser lint
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q

# Debian's Chromium runs the browser test in tests/web; skipped quietly where apt-get is missing or not allowed.
browser:
	@command -v chromium >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) || true

# docs/gallery.md and docs/gallery/*.png from cfrlab's own commands and browser tests (a few minutes).
gallery: $(ALL_STAMP) browser
	$(BIN)/python docs/make_gallery.py

docs: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[docs]"
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m mkdocs build --strict

docs-serve: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[docs]"
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m mkdocs serve --strict

bench: $(ALL_STAMP)
	$(BIN)/python benchmarks/bench_cfr.py

clean:
	rm -rf $(VENV) $(OUT) .pytest_cache .mypy_cache .ruff_cache site
