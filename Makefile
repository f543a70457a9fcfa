# Two entry points (see README): `make reproduce` and `make test`. Both create .venv and install
# the project into it first, so a fresh machine needs nothing but Python >= 3.11.
PYTHON ?= python3
VENV   ?= .venv
CORES  ?= all
CONFIG ?= config/config.yaml
SNAKEMAKE_ARGS ?=
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)

.PHONY: install install-workflow install-docs reproduce test lint docs format config-docs dry-run clean clean-numba

# uv (from PyPI) resolves and installs ~5x faster than pip; pip is the fallback.
# $(VENV)/.installed-<extra>: the project installed (editable) with that extra.
$(VENV)/.installed-%: pyproject.toml
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet uv && \
	  $(VENV)/bin/uv pip install --quiet --python $(VENV)/bin/python -e '.[$*]' || \
	  $(VENV)/bin/python -m pip install --quiet -e '.[$*]'
	touch $@

install-workflow: $(VENV)/.installed-workflow
install: $(VENV)/.installed-test
install-docs: $(VENV)/.installed-docs

reproduce: install-workflow
	snakemake --cores $(CORES) --configfile $(CONFIG) $(SNAKEMAKE_ARGS)

test: install
	python -m pytest

# what CI checks besides the tests (.ci/run calls it)
lint: install
	ruff check .
	ruff format --check .
	snakefmt --check workflow
	lint-imports
	snakemake --lint --configfile config/ci.yaml
	boostcm config-docs --schema workflow/schemas/config.schema.yaml --out - | diff - config/README.md
	$(MAKE) docs

# the documentation site, docs/_build/html/index.html: API reference, guides, executed gallery;
# warnings (broken references, docstring errors, failing examples) fail it
docs: install-docs
	MPLBACKEND=Agg sphinx-build -b html -W --keep-going -q docs docs/_build/html

format: install
	ruff check --fix .
	ruff format .
	snakefmt workflow

config-docs: install
	boostcm config-docs --schema workflow/schemas/config.schema.yaml --out config/README.md

dry-run: install-workflow
	snakemake -n --configfile $(CONFIG)

clean:
	rm -rf results .snakemake

# numba's cache=True does not notice a change in an njit function of another module that a cached
# function calls: clear the compiled kernels after editing kernels.
clean-numba:
	find src -name '*.nbi' -delete -o -name '*.nbc' -delete
