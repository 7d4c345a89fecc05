"""OpInfo entries (view)."""
from opinfo.core import OpInfo, Sample, ErrorSample, T  # noqa: F401

OPINFOS = []
