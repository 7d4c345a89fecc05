"""One library's side of the bad-input fuzzer: a long-lived process that makes drawn calls.

    python tests/bad_input/fuzz_worker.py ember|torch

reads length-prefixed pickled call descriptions on stdin and answers each with a pickled
("ok", summary) or ("raised", error description) on the stdout it was started with (the
library's own prints go to stderr). The parent (fuzz_runner.py) restarts it when it dies
(a crash) or stops answering (a hang). Its address space is capped, so a drawn huge size
fails to allocate in both libraries instead of taking the machine's memory.
"""
from __future__ import annotations

import os
import pickle
import resource
import struct
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzz_entry_calls
from fuzz_values import TEMPORARY_FILES, build, describe_error, summarize

ADDRESS_SPACE_LIMIT = 4 << 30


def _read_exactly(stream, count):
    data = b""
    while len(data) < count:
        chunk = stream.read(count - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def _run(lib, call):
    if call["form"] in ("function", "method", "inplace"):       # a registry op
        args = [build(desc, lib) for desc in call["args"]]
        kwargs = {name: build(desc, lib) for name, desc in call["kwargs"].items()}
        if call["form"] == "function":
            target = getattr(lib, call["name"])
        else:
            target = getattr(args.pop(0), call["name"])
    else:                                                       # another entry point
        target, args, kwargs = fuzz_entry_calls.target(lib, call)
    try:
        result = target(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001  (the class is what the parent compares)
        return ("raised", describe_error(exc))
    try:
        return ("ok", summarize(result, lib))
    except Exception as exc:  # noqa: BLE001
        return ("raised", ("SummaryFailed",) + describe_error(exc)[1:])


def main():
    library = sys.argv[1]
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_LIMIT, ADDRESS_SPACE_LIMIT))
    warnings.simplefilter("ignore")         # this process only: the test compares classes
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    if library == "torch":
        import torch as lib
        lib.set_num_threads(1)
    else:
        import ember as lib
    requests = sys.stdin.buffer
    answers.write(b"ready\n")
    answers.flush()
    while True:
        header = _read_exactly(requests, 4)
        if header is None:
            return
        call = pickle.loads(_read_exactly(requests, struct.unpack("<I", header)[0]))
        try:
            answer = _run(lib, call)
        except Exception as exc:  # noqa: BLE001  (building a value failed: reported as such)
            answer = ("setup", describe_error(exc))
        while TEMPORARY_FILES:
            os.unlink(TEMPORARY_FILES.pop())
        data = pickle.dumps(answer)
        answers.write(struct.pack("<I", len(data)) + data)
        answers.flush()


if __name__ == "__main__":
    main()
