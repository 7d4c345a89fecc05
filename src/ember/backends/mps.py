"""ember.backends.mps: Apple's Metal back-end, which ember does not have."""


def is_available() -> bool:
    """False: ember has no MPS back-end."""
    return False


def is_built() -> bool:
    """False: ember has no MPS back-end."""
    return False


def _no_mps(what: str):
    raise RuntimeError(f"Cannot execute {what} without MPS backend.")


def get_core_count() -> int:
    _no_mps("get_core_count()")


def get_name() -> str:
    _no_mps("get_name()")


def is_macos_or_newer(major: int, minor: int) -> bool:
    _no_mps("isOnMacOSorNewer()")


def is_macos13_or_newer(minor: int = 0) -> bool:
    return is_macos_or_newer(13, minor)


__all__ = [
    "get_core_count",
    "get_name",
    "is_available",
    "is_built",
    "is_macos13_or_newer",
    "is_macos_or_newer",
]
