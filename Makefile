# The two set-up commands: `make demo` runs the demo, `make test` runs the tests.
# Each creates .venv and installs what it needs when it is missing.
PY ?= python3
VENV := .venv
VPY := $(VENV)/bin/python

$(VENV)/.demo-deps: pyproject.toml
	test -x $(VPY) || $(PY) -m venv $(VENV)
	$(VPY) -m pip install -q -e '.[demo]'
	touch $@

$(VENV)/.test-deps: pyproject.toml tests/plugins/ember_npdev/pyproject.toml $(VENV)/.demo-deps
	$(VPY) -m pip install -q -e '.[test]' -e tests/plugins/ember_npdev
	# tests/clients: installed without its requirements (scikit-learn is not used there).
	$(VPY) -m pip install -q --no-deps pytorch-metric-learning==2.9.0
	touch $@

.PHONY: demo test bench generate check-generated fuzz-bad-input fuzz-values
demo: $(VENV)/.demo-deps
	$(VPY) -m ember.demo

test: $(VENV)/.test-deps
	$(VPY) tools/gen_bindings.py --check
	$(VPY) -m pytest -n 2 tests

bench: $(VENV)/.test-deps
	$(VPY) benchmarks/run_all.py

generate: $(VENV)/.demo-deps
	$(VPY) tools/gen_bindings.py

# Many more drawn bad calls than CI's tests/bad_input/test_property*.py: the counts by verdict,
# per family (EMBER_FUZZ_FAMILIES="functional module ..." picks some; all by default).
EMBER_FUZZ_EXAMPLES ?= 5000
fuzz-bad-input: $(VENV)/.test-deps
	EMBER_FUZZ_EXAMPLES=$(EMBER_FUZZ_EXAMPLES) $(VPY) tests/bad_input/fuzz_cli.py

# Valid calls on edge tensors (inf, NaN, +-0, denormals, non-contiguous, expanded, empty)
# against PyTorch's results; a random draw each run (tests/value_diff/vd_cli.py).
fuzz-values: $(VENV)/.test-deps
	EMBER_FUZZ_EXAMPLES=$(EMBER_FUZZ_EXAMPLES) $(VPY) tests/value_diff/vd_cli.py --seed $$RANDOM
