# Bad calls a user makes, each with a word its error message must contain (usually the
# argument's name). Prints one line per call: the label, the error class, whether the word
# appears (ignoring case). Compared line by line with real PyTorch running the same script.
import torch


def backward_twice(y):
    y.backward()
    y.backward()


CASES = [
    ("sum dim out of range", lambda: torch.zeros(2, 3).sum(dim=5), "dimension"),
    ("view bad shape", lambda: torch.zeros(2, 3).view(4, 2), "shape"),
    ("broadcast", lambda: torch.zeros(2) + torch.zeros(3), "size"),
    ("matmul shapes", lambda: torch.zeros(2, 3) @ torch.zeros(2, 3), "mat1"),
    ("bad device", lambda: torch.device("nope"), "device"),
    ("size dim", lambda: torch.zeros(2).size(3), "dimension"),
    ("ragged list", lambda: torch.tensor([[1, 2], [3]]), "sequence"),
    ("int requires_grad", lambda: torch.zeros(2, dtype=torch.int64).requires_grad_(), "dtype"),
    ("item of many", lambda: torch.zeros(2, 2).item(), "elements"),
    ("mean of ints", lambda: torch.zeros(2, dtype=torch.int64).mean(), "dtype"),
    ("len of 0-d", lambda: len(torch.tensor(1.0)), "0-d"),
    ("negative size", lambda: torch.zeros(-1), "negative"),
    ("index out of range", lambda: torch.zeros(3)[5], "index"),
    ("dim out of range", lambda: torch.zeros(2, 2).transpose(0, 3), "dimension"),
    ("cat dims", lambda: torch.cat([torch.zeros(2, 2), torch.zeros(3, 3)]), "Sizes"),
    ("cat empty list", lambda: torch.cat([]), "tensors"),
    ("reshape numel", lambda: torch.arange(6).reshape(4, -1), "shape"),
    ("two -1", lambda: torch.arange(6).reshape(-1, -1), "dimension"),
    ("gather index dtype", lambda: torch.zeros(3).gather(0, torch.tensor([0.0])), "index"),
    ("gather index range", lambda: torch.zeros(3).gather(0, torch.tensor([7])), "index"),
    ("unknown kwarg", lambda: torch.zeros(2).sum(dimension=0), "dimension"),
    ("bad dtype arg", lambda: torch.zeros(2, dtype="float32"), "dtype"),
    ("arange step", lambda: torch.arange(0, 5, 0), "step"),
    ("linspace steps", lambda: torch.linspace(0, 1, -2), "steps"),
    ("full no fill", lambda: torch.full((2,)), "fill_value"),
    ("expand", lambda: torch.zeros(3).expand(2, 4), "size"),
    ("permute dims", lambda: torch.zeros(2, 3).permute(0), "dims"),
    ("squeeze dim", lambda: torch.zeros(2).squeeze(3), "dimension"),
    ("topk k", lambda: torch.arange(3.0).topk(5), "k"),
    ("chunk zero", lambda: torch.arange(3).chunk(0), "chunks"),
    ("backward non-scalar", lambda: torch.ones(2, requires_grad=True).mul(2).backward(),
     "scalar"),
    ("backward twice", lambda: backward_twice(torch.ones(1, requires_grad=True).exp().sum()),
     "backward"),
    ("grad of non-grad", lambda: torch.autograd.grad(torch.ones(1).sum(), torch.ones(1)),
     "grad"),
    ("in-place on leaf", lambda: torch.ones(2, requires_grad=True).add_(1), "leaf"),
    ("check", lambda: torch._check(False, lambda: "argument 'x' is bad"), "'x'"),
    ("check_index", lambda: torch._check_index(False, lambda: "index 'i' out"), "'i'"),
    ("check_value", lambda: torch._check_value(False, lambda: "value of 'v'"), "'v'"),
    ("check_type", lambda: torch._check_type(False, lambda: "type of 't'"), "'t'"),
    ("check_not_impl", lambda: torch._check_not_implemented(False, lambda: "op 'o'"), "'o'"),
    ("check_with", lambda: torch._check_with(KeyError, False, lambda: "key 'k'"), "'k'"),
    ("check passes", lambda: torch._check(True, lambda: 1 / 0), ""),
]

for label, call, word in CASES:
    try:
        call()
    except Exception as error:  # noqa: BLE001  (the class is what this prints)
        print(f"{label} | {type(error).__name__} | names it: {word.lower() in str(error).lower()}")
    else:
        print(f"{label} | no error")
