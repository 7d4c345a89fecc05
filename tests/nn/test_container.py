"""Containers against torch: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict —
indexing, slicing, mutation, arithmetic, iteration, names and state-dict keys, repr, errors."""
from __future__ import annotations

import warnings
from collections import OrderedDict

import pytest
from tests.nn.test_module import assert_same, zoo


def _layers(lib, n=3):
    classes = zoo(lib)
    return [classes["Affine"](2, 2) if i % 2 == 0 else classes["Tanh"]() for i in range(n)]


def _layout(container):
    return (len(container), [name for name, _ in container.named_modules()],
            list(container.state_dict()), repr(container))


# -- Sequential --------------------------------------------------------------------------------

SEQUENTIAL_CASES = {
    "build": lambda lib, s: s,
    "ordered_dict": lambda lib, s: lib.nn.Sequential(OrderedDict(
        [("first", zoo(lib)["Tanh"]()), ("second", zoo(lib)["Affine"](2, 2))])),
    "index": lambda lib, s: s[1],
    "negative_index": lambda lib, s: s[-1],
    "index_error": lambda lib, s: s[3],
    "index_type_error": lambda lib, s: s["0"],
    "slice": lambda lib, s: s[1:],
    "reverse_slice": lambda lib, s: s[::-1],
    "setitem": lambda lib, s: (s.__setitem__(0, zoo(lib)["Tanh"]()), s)[1],
    "delitem": lambda lib, s: (s.__delitem__(1), s)[1],
    "del_slice": lambda lib, s: (s.__delitem__(slice(0, 2)), s)[1],
    "append": lambda lib, s: s.append(zoo(lib)["Tanh"]()),
    "extend": lambda lib, s: s.extend(_layers(lib, 2)),
    "insert": lambda lib, s: s.insert(1, zoo(lib)["Tanh"]()),
    "insert_negative": lambda lib, s: s.insert(-1, zoo(lib)["Tanh"]()),
    "insert_out_of_range": lambda lib, s: s.insert(9, zoo(lib)["Tanh"]()),
    "insert_not_module": lambda lib, s: s.insert(0, 3),
    "pop": lambda lib, s: (s.pop(0), s),
    "pop_slice": lambda lib, s: (s.pop(slice(1, 3)), s),
    "add": lambda lib, s: s + lib.nn.Sequential(*_layers(lib, 2)),
    "add_error": lambda lib, s: s + 3,
    "iadd": lambda lib, s: s.__iadd__(lib.nn.Sequential(zoo(lib)["Tanh"]())),
    "iadd_error": lambda lib, s: s.__iadd__([1]),
    "mul": lambda lib, s: s * 2,
    "rmul": lambda lib, s: 2 * s,
    "imul": lambda lib, s: s.__imul__(3),
    "mul_zero": lambda lib, s: s * 0,
    "mul_float": lambda lib, s: s * 1.5,
    "iterate": lambda lib, s: [type(m).__name__ for m in s],
    "dir_has_no_digits": lambda lib, s: [k for k in dir(s) if k.isdigit()],
    "forward": lambda lib, s: s(lib.ones(1, 2)),
    "len_empty": lambda lib, s: (len(lib.nn.Sequential()), repr(lib.nn.Sequential())),
}


@pytest.mark.parametrize("case", list(SEQUENTIAL_CASES))
def test_sequential_matches_torch(case):
    def run(lib):
        sequence = lib.nn.Sequential(*_layers(lib))
        result = SEQUENTIAL_CASES[case](lib, sequence)
        if isinstance(result, lib.nn.Module):
            return _layout(result)
        if isinstance(result, tuple):
            return [(_layout(r) if isinstance(r, lib.nn.Module) else r) for r in result]
        return result
    assert_same(run)


# -- ModuleList --------------------------------------------------------------------------------

MODULE_LIST_CASES = {
    "build": lambda lib, m: m,
    "empty": lambda lib, m: lib.nn.ModuleList(),
    "index": lambda lib, m: m[-2],
    "index_error": lambda lib, m: m[-4],
    "slice": lambda lib, m: m[::2],
    "setitem": lambda lib, m: (m.__setitem__(-1, zoo(lib)["Affine"](2, 2)), m)[1],
    "delitem": lambda lib, m: (m.__delitem__(0), m)[1],
    "del_slice": lambda lib, m: (m.__delitem__(slice(None, None, 2)), m)[1],
    "insert": lambda lib, m: (m.insert(1, zoo(lib)["Affine"](2, 2)), m)[1],
    "append": lambda lib, m: m.append(zoo(lib)["Tanh"]()),
    "extend": lambda lib, m: m.extend(_layers(lib, 2)),
    "extend_error": lambda lib, m: m.extend(3),
    "pop": lambda lib, m: (m.pop(1), m),
    "add": lambda lib, m: m + _layers(lib, 2),
    "iadd": lambda lib, m: m.__iadd__(_layers(lib, 1)),
    "repeated_repr": lambda lib, m: lib.nn.ModuleList(
        [zoo(lib)["Tanh"]() for _ in range(3)] + [zoo(lib)["Block"](), zoo(lib)["Block"]()]
        + [zoo(lib)["Tanh"]()]),
    "nested_repr": lambda lib, m: lib.nn.ModuleList([m, lib.nn.Sequential(*_layers(lib, 2))]),
    "call": lambda lib, m: m(lib.ones(1)),
    "iterate": lambda lib, m: [type(x).__name__ for x in m],
}


@pytest.mark.parametrize("case", list(MODULE_LIST_CASES))
def test_module_list_matches_torch(case):
    def run(lib):
        modules = lib.nn.ModuleList(_layers(lib))
        result = MODULE_LIST_CASES[case](lib, modules)
        if isinstance(result, lib.nn.Module):
            return _layout(result)
        if isinstance(result, tuple):
            return [(_layout(r) if isinstance(r, lib.nn.Module) else r) for r in result]
        return result
    assert_same(run)


# -- ModuleDict --------------------------------------------------------------------------------

MODULE_DICT_CASES = {
    "build": lambda lib, d: d,
    "from_pairs": lambda lib, d: lib.nn.ModuleDict([("z", zoo(lib)["Tanh"]()),
                                                    ("a", zoo(lib)["Tanh"]())]),
    "getitem": lambda lib, d: d["act"],
    "missing": lambda lib, d: d["nope"],
    "setitem": lambda lib, d: (d.__setitem__("new", zoo(lib)["Tanh"]()), d)[1],
    "setitem_bad_key": lambda lib, d: d.__setitem__("a.b", zoo(lib)["Tanh"]()),
    "delitem": lambda lib, d: (d.__delitem__("act"), d)[1],
    "pop": lambda lib, d: (d.pop("lin"), d),
    "clear": lambda lib, d: (d.clear(), d)[1],
    "contains": lambda lib, d: ("lin" in d, "x" in d, 3 in d),
    "views": lambda lib, d: (list(d.keys()), list(d.values()), list(d.items()), list(d)),
    "update_mapping": lambda lib, d: (d.update({"b": zoo(lib)["Tanh"]()}), d)[1],
    "update_not_iterable": lambda lib, d: d.update(3),
    "update_bad_element": lambda lib, d: d.update([3]),
    "update_wrong_length": lambda lib, d: d.update([("a", zoo(lib)["Tanh"](), 1)]),
    "call": lambda lib, d: d(lib.ones(1)),
}


@pytest.mark.parametrize("case", list(MODULE_DICT_CASES))
def test_module_dict_matches_torch(case):
    def run(lib):
        modules = lib.nn.ModuleDict({"lin": zoo(lib)["Affine"](2, 2), "act": zoo(lib)["Tanh"]()})
        result = MODULE_DICT_CASES[case](lib, modules)
        if isinstance(result, lib.nn.Module):
            return _layout(result)
        if isinstance(result, tuple):
            return [(_layout(r) if isinstance(r, lib.nn.Module) else r) for r in result]
        return result
    assert_same(run)


# -- ParameterList / ParameterDict -------------------------------------------------------------

def _param_layout(container):
    return (len(container), list(container.named_parameters()), list(container.state_dict()),
            repr(container))


PARAMETER_LIST_CASES = {
    "build": lambda lib, p: p,
    "empty": lambda lib, p: lib.nn.ParameterList(),
    "index": lambda lib, p: p[1],
    "index_error": lambda lib, p: p[5],
    "slice": lambda lib, p: p[1:],
    "setitem_tensor": lambda lib, p: (p.__setitem__(0, lib.zeros(2)), p)[1],
    "append_object": lambda lib, p: p.append("text"),
    "append_double": lambda lib, p: p.append(lib.ones(2, 3, dtype=lib.float64)),
    "extend": lambda lib, p: p.extend([lib.ones(1), lib.nn.Parameter(lib.zeros(1))]),
    "extend_tensor": lambda lib, p: p.extend(lib.ones(2)),
    "extend_int": lambda lib, p: p.extend(3),
    "iadd": lambda lib, p: p.__iadd__([lib.ones(4)]),
    "iterate": lambda lib, p: list(p),
    "integer_tensor": lambda lib, p: p.append(lib.arange(3)),
    "call": lambda lib, p: p(lib.ones(1)),
    "types": lambda lib, p: [type(x).__name__ for x in p],
}


@pytest.mark.parametrize("case", list(PARAMETER_LIST_CASES))
def test_parameter_list_matches_torch(case):
    def run(lib):
        params = lib.nn.ParameterList([lib.nn.Parameter(lib.ones(2)), lib.zeros(3, 2),
                                       lib.arange(3.0)])
        result = PARAMETER_LIST_CASES[case](lib, params)
        if isinstance(result, lib.nn.Module):
            return _param_layout(result)
        if isinstance(result, tuple):
            return [(_param_layout(r) if isinstance(r, lib.nn.Module) else r) for r in result]
        return result
    assert_same(run)


PARAMETER_DICT_CASES = {
    "build": lambda lib, p: p,
    "from_ordered": lambda lib, p: lib.nn.ParameterDict(OrderedDict(
        [("z", lib.ones(1)), ("a", lib.zeros(1))])),
    "from_pairs": lambda lib, p: lib.nn.ParameterDict([("z", lib.ones(1)), ("a", "text")]),
    "getitem": lambda lib, p: p["w"],
    "missing": lambda lib, p: p["nope"],
    "non_string_key": lambda lib, p: p[3],
    "setitem": lambda lib, p: (p.__setitem__("new", lib.ones(2, 2)), p)[1],
    "delitem": lambda lib, p: (p.__delitem__("w"), p)[1],
    "pop": lambda lib, p: (p.pop("b"), p),
    "popitem": lambda lib, p: (p.popitem(), p),
    "setdefault": lambda lib, p: (p.setdefault("w"), p.setdefault("q", lib.ones(1)), p),
    "get": lambda lib, p: (p.get("w"), p.get("nope", 5)),
    "clear": lambda lib, p: (p.clear(), p)[1],
    "copy": lambda lib, p: p.copy(),
    "fromkeys": lambda lib, p: p.fromkeys(["x", "y"], lib.ones(1)),
    "views": lambda lib, p: (list(p.keys()), list(p.values()), list(p.items()), list(p),
                             list(reversed(p)), "w" in p),
    "or": lambda lib, p: p | lib.nn.ParameterDict({"c": lib.ones(1)}),
    "ior": lambda lib, p: p.__ior__(lib.nn.ParameterDict({"c": lib.ones(1)})),
    "update_error": lambda lib, p: p.update(5),
    "update_bad_pair": lambda lib, p: p.update([("a",)]),
    "call": lambda lib, p: p(lib.ones(1)),
}


@pytest.mark.parametrize("case", list(PARAMETER_DICT_CASES))
def test_parameter_dict_matches_torch(case):
    def run(lib):
        params = lib.nn.ParameterDict({"w": lib.ones(2), "b": lib.nn.Parameter(lib.zeros(1)),
                                       "a": 7, "h": lib.zeros(2, 1, dtype=lib.float64)})
        result = PARAMETER_DICT_CASES[case](lib, params)
        if isinstance(result, lib.nn.Module):
            return _param_layout(result)
        if isinstance(result, tuple):
            return [(_param_layout(r) if isinstance(r, lib.nn.Module) else r) for r in result]
        return result
    assert_same(run)


def test_containers_inside_a_model_give_torch_state_keys():
    def run(lib):
        model = lib.nn.Module()
        model.layers = lib.nn.ModuleList([lib.nn.Sequential(*_layers(lib, 2))])
        model.heads = lib.nn.ModuleDict({"main": zoo(lib)["Affine"](2, 2)})
        model.extras = lib.nn.ParameterList([lib.ones(1)])
        model.named = lib.nn.ParameterDict({"scale": lib.ones(1)})
        return list(model.state_dict()), repr(model)
    assert_same(run)


def test_container_class_is_deprecated_like_torch():
    def run(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            container = lib.nn.Container(a=zoo(lib)["Tanh"]())
        return [w.category.__name__ for w in caught], list(container.named_children())
    assert_same(run)
