# Two entry points (see README): `make reproduce` and `make test`. Both create .venv and install
# the project into it first, so a fresh machine needs nothing but Python >= 3.11.
PYTHON ?= python3
VENV   ?= .venv
CORES  ?= all
CONFIG ?= config/config.yaml
SNAKEMAKE_ARGS ?=
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)

.PHONY: install reproduce test lint dry-run clean clean-numba

# uv (from PyPI) resolves and installs ~5x faster than pip; pip is the fallback.
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet uv && \
	  $(VENV)/bin/uv pip install --quiet --python $(VENV)/bin/python -e '.[test]' || \
	  $(VENV)/bin/python -m pip install --quiet -e '.[test]'
	touch $@

install: $(VENV)/.installed

reproduce: install
	snakemake --cores $(CORES) --configfile $(CONFIG) $(SNAKEMAKE_ARGS)

test: install
	python -m pytest

lint: install
	snakemake --lint --configfile config/ci.yaml
	ruff check src tests

dry-run: install
	snakemake -n --configfile $(CONFIG)

clean:
	rm -rf results .snakemake

# numba's cache=True does not notice a change in an njit function of another module that a cached
# function calls: clear the compiled kernels after editing kernels.
clean-numba:
	find src -name '*.nbi' -delete -o -name '*.nbc' -delete
