"""Code generated from the op registry by tools/ (checked in, verified in CI)."""
