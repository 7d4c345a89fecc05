"""ember's core: dtypes, devices, storage, type promotion, the op registry and the dispatcher.

Nothing here imports from the rest of ember but the back-ends (ember._backends: the array
modules the dispatcher runs kernels on), which at load time import only from here.
"""
