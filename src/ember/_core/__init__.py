"""ember's core: dtypes, devices, storage, type promotion, the op registry and the dispatcher.

Nothing here imports from the rest of ember but the back-ends (ember._backends: the array
modules the dispatcher runs kernels on), which import only from here (the layers contract in
pyproject.toml, checked by tests/test_import_layers.py); what the layers above lend the ops
comes through upcalls.py (NOTE [upcalls]).
"""
