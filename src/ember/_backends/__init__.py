"""Array back-ends: cpu.py (NumPy), meta.py (shape-only arrays), cuda.py (CuPy, lazy)."""
