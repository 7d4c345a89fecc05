# Deprecated names that old PyTorch code still uses. Prints results and which warnings came.
import warnings

import torch


def run(label, call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = call()
        except Exception as error:  # noqa: BLE001
            result = type(error).__name__
    deprecations = [w.category.__name__ for w in caught if "deprecated" in str(w.message)]
    print(f"{label} | {result} | {deprecations}")


run("FloatTensor(2, 3)", lambda: torch.FloatTensor(2, 3).shape)
run("FloatTensor(list)", lambda: torch.FloatTensor([1, 2]))
run("LongTensor(list)", lambda: torch.LongTensor([[1], [2]]))
run("DoubleTensor dtype", lambda: torch.DoubleTensor([1]).dtype)
run("ByteTensor dtype", lambda: torch.ByteTensor([1]).dtype)
run("isinstance", lambda: (isinstance(torch.zeros(2), torch.FloatTensor),
                           isinstance(torch.zeros(2), torch.LongTensor),
                           isinstance(torch.zeros(2, dtype=torch.long), torch.LongTensor)))
run("type()", lambda: (torch.zeros(2, dtype=torch.int32).type(), torch.zeros(1).type()))
run("type(str)", lambda: torch.zeros(2).type("torch.DoubleTensor").dtype)
run("type(class)", lambda: torch.zeros(2).type(torch.IntTensor).dtype)
run("type(bad)", lambda: torch.zeros(2).type("torch.NopeTensor"))
run("typename", lambda: torch.typename(torch.zeros(2, dtype=torch.float64)))
run("Variable", lambda: torch.autograd.Variable(torch.ones(2), requires_grad=True).requires_grad)
run("Variable isinstance", lambda: isinstance(torch.ones(1), torch.autograd.Variable))
v = torch.autograd.Variable(torch.tensor([3.0]), requires_grad=True)
(v * v).sum().backward()
run("Variable grad", lambda: v.grad)
run("set_default_tensor_type", lambda: torch.set_default_tensor_type(torch.DoubleTensor))
run("default dtype now", lambda: (torch.get_default_dtype(), torch.tensor([1.5]).dtype))
run("again (warned once)", lambda: torch.set_default_tensor_type("torch.FloatTensor"))
run("default dtype back", lambda: torch.tensor([1.5]).dtype)
run("non-float type", lambda: torch.set_default_tensor_type(torch.IntTensor))
run("unknown name", lambda: torch.set_default_tensor_type("torch.NopeTensor"))
torch.set_warn_always(True)
run("warn always", lambda: torch.set_default_tensor_type(torch.FloatTensor))
torch.set_warn_always(False)
run("warn once again", lambda: torch.set_default_tensor_type(torch.FloatTensor))
