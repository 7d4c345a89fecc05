"""Runs a model of fake_models.py under a library's FakeTensorMode and reports the metadata of
every module output, recorded intermediate, the loss and every gradient."""
import importlib


def describe(t):
    return (tuple(t.shape), str(t.dtype).split(".")[-1], tuple(t.stride()), str(t.device),
            bool(t.requires_grad))


def _flat(value):
    if isinstance(value, (tuple, list)):
        for v in value:
            yield from _flat(v)
    else:
        yield value


def run_fake(lib, build, how):
    """how: 'inside' (model and inputs made inside the mode) or 'converted' (made real, inputs
    converted with from_tensor, parameters converted as the ops meet them)."""
    fake = importlib.import_module(lib.__name__ + "._subclasses.fake_tensor")
    lib.manual_seed(0)
    records, kinds = [], []
    mode = fake.FakeTensorMode(allow_non_fake_inputs=(how == "converted"))

    def record(name, t):
        records.append((name, describe(t)))
        kinds.append(type(t).__name__)

    if how == "converted":
        model, inputs, loss_fn = build(lib)
        inputs = tuple(mode.from_tensor(t) for t in inputs)
    with mode:
        if how == "inside":
            model, inputs, loss_fn = build(lib)
        def hook(module, args, out):
            for o in _flat(out):
                if o is not None:
                    record("module " + names[module], o)

        names = {module: name for name, module in model.named_modules()}
        for module in names:
            module.register_forward_hook(hook)
        loss = loss_fn(model, *inputs, record)
        record("loss", loss)
        loss.backward()
    grads = [(name, describe(p.grad)) for name, p in model.named_parameters()]
    grad_kinds = [type(p.grad).__name__ for _, p in model.named_parameters()]
    return records, grads, kinds + grad_kinds
