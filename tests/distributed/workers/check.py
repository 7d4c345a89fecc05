"""What the workers share: a check counter that prints failures instead of stopping."""
import sys
import traceback

import numpy as np

_count = [0]


def check(ok, what):
    _count[0] += 1
    if not ok:
        print(f"FAIL {what}", flush=True)


def same(tensor, expected, what, exact=False, rtol=1e-6, atol=1e-6):
    if str(tensor.dtype) == "ember.complex32":
        got = tensor.to(dtype=__import__("ember").complex64).numpy()
    elif str(tensor.dtype) in ("ember.bfloat16", "ember.float8_e4m3fn", "ember.float8_e5m2"):
        got = tensor.float().numpy()
    else:
        got = tensor.numpy()
    expected = np.asarray(expected)
    ok = got.shape == expected.shape and (
        np.array_equal(got, expected) if exact else
        np.allclose(got.astype(np.complex128 if np.iscomplexobj(got) else np.float64),
                    expected, rtol=rtol, atol=atol))
    check(ok, f"{what}: got {got!r}, expected {expected!r}")


def raises(kind, fn, what):
    try:
        fn()
    except kind:
        check(True, what)
        return
    except Exception:  # noqa: BLE001 - reported as a failed check
        check(False, f"{what}: raised {traceback.format_exc()}")
        return
    check(False, f"{what}: did not raise {kind.__name__}")


def done():
    print(f"DONE {_count[0]}", flush=True)
    sys.stdout.flush()
