"""`ember.cuda.tunable`: the settings of TunableOp (GEMM kernels chosen by timing them). ember's
CUDA back-end has one GEMM per call (CuPy's), so tuning never runs; the settings are kept and
read back. Without CUDA they raise PyTorch's "not compiled with CUDA" error."""
from __future__ import annotations

from ember._backends.cuda import _require, device_count

__all__ = [
    "enable",
    "get_filename",
    "get_max_tuning_duration",
    "get_max_tuning_iterations",
    "get_results",
    "get_rotating_buffer_size",
    "get_validators",
    "is_enabled",
    "mgpu_tune_gemm_in_file",
    "read_file",
    "record_untuned_enable",
    "record_untuned_is_enabled",
    "set_filename",
    "set_max_tuning_duration",
    "set_max_tuning_iterations",
    "set_numerical_check_tolerances",
    "set_rotating_buffer_size",
    "tune_gemm_in_file",
    "tuning_enable",
    "tuning_is_enabled",
]

_settings = {"enabled": False, "tuning": True, "record_untuned": False, "duration": 30,
             "iterations": 100, "filename": "tunableop_results.csv", "rotating_buffer": 0,
             "numerical_check": (False, 1e-5, 1e-5)}


def _set(key: str, value) -> None:
    _require()
    _settings[key] = value


def _get(key: str):
    _require()
    return _settings[key]


def enable(val: bool = True) -> None:
    _set("enabled", bool(val))


def is_enabled() -> bool:
    return _get("enabled")


def tuning_enable(val: bool = True) -> None:
    _set("tuning", bool(val))


def tuning_is_enabled() -> bool:
    return _get("tuning")


def record_untuned_enable(val: bool = True) -> None:
    _set("record_untuned", bool(val))


def record_untuned_is_enabled() -> bool:
    return _get("record_untuned")


def set_max_tuning_duration(duration: int) -> None:
    _set("duration", int(duration))


def get_max_tuning_duration() -> int:
    return _get("duration")


def set_max_tuning_iterations(iterations: int) -> None:
    _set("iterations", int(iterations))


def get_max_tuning_iterations() -> int:
    return _get("iterations")


def set_filename(filename: str, insert_device_ordinal: bool = False) -> None:
    _set("filename", str(filename))


def get_filename() -> str:
    return _get("filename")


def set_rotating_buffer_size(buffer_size: int) -> None:
    _set("rotating_buffer", int(buffer_size))


def get_rotating_buffer_size() -> int:
    return _get("rotating_buffer")


def set_numerical_check_tolerances(enable: bool, atol: float = 1e-5, rtol: float = 1e-5):
    _set("numerical_check", (bool(enable), float(atol), float(rtol)))


def get_results() -> tuple:
    """The tuned (op, params, kernel, time) rows: none, nothing is ever tuned."""
    _require()
    return ()


def get_validators() -> tuple:
    _require()
    return ()


def read_file(filename: str | None = None) -> bool:
    """Load tuning results: there are none to load into (False: nothing read)."""
    _require()
    return False


def tune_gemm_in_file(filename: str) -> None:
    _require()


def mgpu_tune_gemm_in_file(filename_pattern: str, num_gpus: int) -> None:
    count = device_count()
    if not 1 <= num_gpus <= count:
        raise AssertionError(f"num_gpus must be between 1 and {count}, got {num_gpus}")
    _require()
