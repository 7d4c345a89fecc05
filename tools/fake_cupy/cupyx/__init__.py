"""The fake CuPy's cupyx (test-only; see cupy/__init__.py): only `cupyx.scipy.special`."""
