# use_deterministic_algorithms is observable: on the CPU, put_ without accumulate has no
# deterministic kernel (it raises, or warns with warn_only); everything else runs.
import os
import warnings

import torch

x = torch.arange(6.0)
index = torch.tensor([0, 0])
source = torch.tensor([1.0, 2.0])


def attempt(label, call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            call()
            outcome = "ran"
        except RuntimeError as error:
            outcome = f"RuntimeError ({'deterministic implementation' in str(error)})"
    alerts = [os.path.basename(w.filename) for w in caught
              if "deterministic implementation" in str(w.message)]
    print(f"{label}: {outcome}, warnings from {alerts}")


def others():
    x.clone().put_(index, source, accumulate=True)
    x.clone().index_put_((index,), source, accumulate=True)
    torch.zeros(3).scatter_add_(0, index, source)
    torch.zeros(3).index_add_(0, index, source)
    torch.cumsum(x, 0)
    torch.arange(6.0, requires_grad=True).gather(0, index).sum().backward()


attempt("off: put_", lambda: x.clone().put_(index, source))
torch.use_deterministic_algorithms(True)
attempt("on: put_", lambda: x.clone().put_(index, source))
attempt("on: torch.put", lambda: torch.put(x, index, source))
attempt("on: other ops", others)
torch.use_deterministic_algorithms(True, warn_only=True)
attempt("warn_only: put_", lambda: x.clone().put_(index, source))
torch.set_deterministic_debug_mode("error")
attempt("debug mode error: put_", lambda: x.clone().put_(index, source))
torch.set_deterministic_debug_mode("default")
attempt("debug mode default: put_", lambda: x.clone().put_(index, source))
