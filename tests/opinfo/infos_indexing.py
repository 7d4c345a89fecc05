"""OpInfo entries (indexing)."""
from opinfo.core import OpInfo, Sample, ErrorSample, T  # noqa: F401

OPINFOS = []
