# Two entry points (see README): `make reproduce` and `make test`. Both create .venv and install
# the project into it first, so a fresh machine needs nothing but Python >= 3.11.
PYTHON ?= python3
VENV   ?= .venv
CORES  ?= all
CONFIG ?= config/config.yaml
SNAKEMAKE_ARGS ?=
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)

.PHONY: install install-workflow install-docs reproduce test test-fast lint lock docs format config-docs dry-run clean clean-numba

# The versions in uv.lock are what gets installed (`make lock` after editing the dependencies of
# pyproject.toml; `make lint` checks the two agree). uv, from PyPI, exports the lock of the extra
# and installs it, compiling bytecode once here: these machines set PYTHONDONTWRITEBYTECODE=1 (and
# clusters often mount environments read-only), so without it every job would compile pandas,
# scikit-learn and boostcm from source again. Where uv cannot be installed, pip installs unlocked
# versions, saying so. Then numba's kernels are compiled once into its cache (`boostcm
# compile-kernels`), so that no job compiles them. $(VENV)/.installed-<extra>: the project
# installed (editable) with that extra.
UV = $(VENV)/bin/uv
$(VENV)/.installed-%: pyproject.toml uv.lock
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	if $(VENV)/bin/python -m pip install --quiet uv; then \
	  $(UV) export --quiet --frozen --extra $* --no-emit-project -o $(VENV)/requirements-$*.txt && \
	  $(UV) pip install --quiet --python $(VENV)/bin/python --compile-bytecode \
	    -r $(VENV)/requirements-$*.txt && \
	  $(UV) pip install --quiet --python $(VENV)/bin/python --no-deps -e .; \
	else \
	  echo "uv could not be installed: pip installs the newest versions, not uv.lock's" && \
	  $(VENV)/bin/python -m pip install --quiet -e '.[$*]'; \
	fi
	$(VENV)/bin/python -m compileall -q -j 0 src \
	  $$($(VENV)/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
	$(VENV)/bin/boostcm compile-kernels
	touch $@

install-workflow: $(VENV)/.installed-workflow
install: $(VENV)/.installed-test
install-docs: $(VENV)/.installed-docs

reproduce: install-workflow
	snakemake --cores $(CORES) --configfile $(CONFIG) $(SNAKEMAKE_ARGS)

# Every test, spread over the cores by pytest-xdist: the CI profile is built once for all workers
# (tests/conftest.py), and the tests that change it take it in turn (a file lock).
TEST_WORKERS ?= logical
test: install
	python -m pytest -n $(TEST_WORKERS) --dist loadgroup

# The inner loop: unit tests only, no workflow runs (< 5 min on 2 cores)
test-fast: install
	python -m pytest -n $(TEST_WORKERS) --dist loadgroup -m "not e2e and not slurm and not slow"

# uv.lock and envs/boostcm.yaml from pyproject.toml (newest versions allowed); commit both
lock: install
	$(UV) lock
	python envs/conda_env.py $(UV) > envs/boostcm.yaml

# what CI checks besides the tests (.ci/run calls it)
lint: install
	$(UV) lock --check
	python envs/conda_env.py $(UV) | diff - envs/boostcm.yaml
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
