"""The Future of `Work.get_future()` and DDP's communication hooks: a value that may still be
in flight. `wait()` finishes what it waits on (a Work, or the Future it was chained from by
`then`) and returns the value; `then(callback)` chains without waiting."""
from __future__ import annotations

__all__ = ["Future", "completed_future"]


class Future:
    def __init__(self, waiter=None):
        self._waiter = waiter         # a zero-argument function giving the value, or None
        self._value = None
        self._error = None
        self._done = False

    def done(self) -> bool:
        return self._done

    def set_result(self, result) -> None:
        self._value, self._done, self._waiter = result, True, None

    def set_exception(self, error) -> None:
        self._error, self._done, self._waiter = error, True, None

    def wait(self):
        if not self._done:
            waiter, self._waiter = self._waiter, None
            if waiter is None:
                raise RuntimeError("Future.wait(): the future has no result and nothing to "
                                   "wait for")
            try:
                self.set_result(waiter())
            except BaseException as error:  # noqa: BLE001 - kept for every later wait()
                self.set_exception(error)
        if self._error is not None:
            raise self._error
        return self._value

    def value(self):
        return self.wait()

    def then(self, callback) -> Future:
        """A Future whose value is `callback(self)`, computed once this one is waited for."""
        def run():
            self.wait()
            return callback(self)
        return Future(run)


def completed_future(value) -> Future:
    future = Future()
    future.set_result(value)
    return future


def future_of_work(work, value) -> Future:
    """A Future that waits for `work` and then holds `value` (a tensor list, usually)."""
    def run():
        work.wait()
        return value
    return Future(run)
