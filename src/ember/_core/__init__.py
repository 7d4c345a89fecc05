"""ember's core: dtypes, devices, storage, type promotion, the op registry and the dispatcher.

Nothing here imports from the rest of ember.
"""
