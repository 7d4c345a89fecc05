"""ember.func.functional_call: call a module with some parameters and buffers swapped for
given tensors, restoring them afterwards."""
from __future__ import annotations

import inspect


# --------------------------------------------------------------------------- functional_call

_MISSING = object()


def _named(module, method):
    fn = getattr(module, method, None)
    if fn is None:
        return []
    if "remove_duplicate" in inspect.signature(fn).parameters:
        return list(fn(remove_duplicate=False))
    return list(fn())


def _untie(module, values):
    """With tied weights (one tensor under several names), a value given for one name
    applies to all of them."""
    names_of = {}
    for name, t in _named(module, "named_parameters") + _named(module, "named_buffers"):
        names_of.setdefault(id(t), set()).add(name)
    tied = {n: names for names in names_of.values() if len(names) > 1 for n in names}
    given_tied = [n for n in values if n in tied]
    for n in given_tied:
        group = tied[n]
        if len(group & set(given_tied)) > 1 and \
                len({id(values[m]) for m in group if m in values}) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(group)}, "
                             "which are tied. Consider using tie_weights=False")
    untied = dict(values)
    for n in given_tied:
        for m in tied[n]:
            untied[m] = values[n]
    return untied


def _owner(module, path):
    *parents, attr = path.split(".")
    owner = module
    for part in parents:
        owner = getattr(owner, part)
    return owner, attr


def _swap(owner, attr, value):
    """Put `value` at owner.attr, in the parameter/buffer table when the owner has one;
    returns what was there."""
    for table_name in ("_parameters", "_buffers"):
        table = getattr(owner, table_name, None)
        if isinstance(table, dict) and attr in table:
            old = table[attr]
            table[attr] = value
            return old
    old = getattr(owner, attr, _MISSING)
    setattr(owner, attr, value)
    return old


def _restore(owner, attr, old):
    if old is _MISSING:
        delattr(owner, attr)
    else:
        _swap(owner, attr, old)


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """Call `module` with its parameters and buffers replaced by the given tensors (restored
    afterwards, even if the call raises)."""
    if isinstance(parameter_and_buffer_dicts, dict):
        values = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, (list, tuple)):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be "
                             "dictionaries")
        counts = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated = [k for k, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of "
                             "functional call is ambiguous")
        values = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of "
                         f"dicts, but got {type(parameter_and_buffer_dicts)}")
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    if tie_weights:
        values = _untie(module, values)
    if strict:
        known = {n for n, _ in _named(module, "named_parameters") +
                 _named(module, "named_buffers")}
        missing = sorted(known - set(values))
        unexpected = sorted(set(values) - known)
        errors = []
        if unexpected:
            errors.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            errors.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if errors:
            get_name = getattr(module, "_get_name", None)
            name = get_name() if get_name is not None else type(module).__name__
            raise RuntimeError(f"Error(s) in reparametrizing for {name}:\n\t" +
                               "\n\t".join(errors))
    swapped = []
    try:
        for path, value in values.items():
            owner, attr = _owner(module, path)
            swapped.append((owner, attr, _swap(owner, attr, value)))
        return module(*args, **kwargs)
    finally:
        for owner, attr, old in reversed(swapped):
            _restore(owner, attr, old)
