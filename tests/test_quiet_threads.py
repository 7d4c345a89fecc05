"""NOTE [floating-point warnings]: the quiet runner is per thread and tolerates nesting; the
user's NumPy error state holds in every thread."""
import threading
import warnings

import numpy as np

import ember
from ember._core import fp_errors


def test_quiet_kernels_in_many_threads_leave_each_threads_state():
    failures = []

    def work():
        try:
            with np.errstate(all="raise"), warnings.catch_warnings():
                warnings.simplefilter("error")
                big = ember.full((1000,), 3e38)
                for _ in range(200):
                    (big * big).sum()
                    ember.log(ember.zeros(4))
                assert np.geterr()["over"] == "raise"
                try:
                    np.float32(3e38) * np.float32(3e38)
                except FloatingPointError:
                    pass
                else:
                    failures.append("the user's raise mode was lost in a thread")
        except Exception as error:  # noqa: BLE001 -- reported below
            failures.append(repr(error))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_a_quiet_call_nested_in_another_runs():
    def outer(x):
        # A kernel that itself runs quietly (as one that dispatches would).
        return fp_errors.run_quietly(np.log, x)
    with np.errstate(all="raise"):
        got = fp_errors.run_quietly(outer, np.zeros(2))
    assert np.isneginf(got).all()
