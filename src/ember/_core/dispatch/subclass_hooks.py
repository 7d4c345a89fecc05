"""Tensor's own methods and properties on subclasses that see their calls.

NOTE [subclass methods reach __torch_function__]: registry ops reach `__torch_function__`
through the dispatcher, but Tensor's hand-written methods and properties (`t[0]`, `t.detach()`,
`t.shape`, `t.tolist()`, `len(t)`, `t.grad = g` ...) do not pass through it. PyTorch offers
those to `__torch_function__` too, so a subclass that overrides it sees them and its default
re-wraps their tensor results (`t[0]` of a subclass is that subclass). ember does this without a
cost on plain tensors: when a subclass in FUNCTION is defined, each such attribute it would
inherit from Tensor itself is shadowed on the subclass by a hook that hands the call to
`handle_torch_function` (with Tensor's own method, or a property's `__get__` / `__set__`, as
the function) unless that is switched off (`DisableTorchFunctionSubclass`, the default
`__torch_function__` running it), and otherwise calls Tensor's attribute. Subclasses of a
hooked subclass inherit its hooks; an attribute a subclass defines itself is left alone.
The generated methods and operators are hooked too: with no mode open the bindings don't name
themselves to the dispatcher (NOTE [the public function reaches level 1], stack.py), so the
hook is what hands `t.add(1)` over as `Tensor.add` and `t * 2` as `Tensor.mul`.
A method's hook is a `LazyAttribute` on the subclass until first read, when the hook is made: so
defining a subclass (`nn.Parameter`'s lazy placeholders at `import ember.nn`) makes no hooks and,
where Tensor's method still stands in for its lazily loaded family (NOTE [op families load on
first use]), loads no op family.
"""
from __future__ import annotations

from functools import partial

from ember._core.dispatch import subclasses
from ember._core.dispatch.stack import REPORTED_AS
from ember._core.lazy_method import STAND_INS, LazyAttribute

# Tensor attributes that stay as they are: the subclass machinery itself, construction,
# pickling (the subclass's own reduce logic), and what PyTorch leaves in Python without the
# hand-off (`__iter__`, which reaches __torch_function__ through the ops it calls).
NEVER = frozenset({
    "__init_subclass__", "__torch_function__", "__torch_dispatch__", "as_subclass",
    "_make_subclass", "_make_wrapper_subclass", "__new__", "__init__", "__reduce_ex__",
    "__reduce__", "__getstate__", "__setstate__", "__iter__", "__class_getitem__", "_host",
    "__dlpack__", "__dlpack_device__", "__hash__", "__str__", "__setattr__", "__getattr__",
    "__getattribute__", "__delattr__", "__sizeof__", "__dir__",
    "_version", "__class__", "__dict__", "__weakref__", "__doc__", "__module__",
})


def _hook_method(fn, reported, wanted, handle):
    """`fn` offered to __torch_function__ as `reported` (the Tensor method an operator stands
    for, NOTE [the function __torch_function__ sees], else `fn` itself)."""
    def method(self, *args, **kwargs):
        if wanted((self, *args)):
            return handle(reported, (self, *args), (self, *args), kwargs)
        return fn(self, *args, **kwargs)
    # (functools.wraps by hand: about a third of the time, over ~600 methods)
    method.__module__ = fn.__module__
    method.__name__ = fn.__name__
    method.__qualname__ = fn.__qualname__
    method.__doc__ = fn.__doc__
    method.__dict__.update(fn.__dict__)
    method.__wrapped__ = fn
    method._ember_hook = True
    return method


# The hooks do not depend on the subclass: made once per Tensor attribute and shared by every
# subclass that inherits it (the first overriding subclass pays for them, later ones do not).
_HOOKS: dict = {}       # (name, attribute, wanted, handle) -> hook


def _hook_property(prop, wanted, handle):
    def get(self):
        if wanted((self,)):
            return handle(prop.__get__, (self,), (self,), {})
        return prop.fget(self)

    def put(self, value):
        if wanted((self, value)):
            return handle(prop.__set__, (self, value), (self, value), {})
        return prop.fset(self, value)

    hooked = property(get, put if prop.fset is not None else None, prop.fdel, prop.__doc__)
    return hooked


def install(cls, base, wanted, handle) -> None:
    """Shadow on `cls` (a subclass in FUNCTION) the attributes it inherits from `base`
    (Tensor) itself, so that calls to them reach __torch_function__."""
    if cls not in subclasses.FUNCTION:
        return
    mro = cls.__mro__
    defined = set()         # what the subclass (or a hooked parent) defines itself
    for k in mro[:mro.index(base)]:
        defined.update(vars(k))
    for name, attr in vars(base).items():
        if name in NEVER or name in defined:
            continue
        hook = _hook(base, name, attr, wanted, handle)
        if hook is not False:
            setattr(cls, name, hook)


def _hook(base, name, attr, wanted, handle):
    """The hook of Tensor attribute `name`, shared by every subclass: a property's at once, a
    method's as a LazyAttribute that makes it on first read (making ~650 method hooks costs ~2
    ms, and `import ember.nn` defines such subclasses: the lazy placeholders of
    nn/parameter.py), or False for one that is left alone."""
    key = (name, attr, wanted, handle)
    hook = _HOOKS.get(key)
    if hook is None:
        if isinstance(attr, property):
            hook = _hook_property(attr, wanted, handle)
        elif type(attr) in STAND_INS or _hookable(attr):
            hook = LazyAttribute(name, partial(_resolved_hook, base, name, wanted, handle))
        else:
            hook = False
        _HOOKS[key] = hook
    return hook


def _hookable(attr) -> bool:
    """Whether a Tensor method gets a hook: ember's own functions (the generated ones too: with
    no mode open the bindings don't name themselves to the dispatcher, NOTE [the public
    function reaches level 1])."""
    module = getattr(attr, "__module__", None) or ""
    return callable(attr) and not isinstance(attr, (staticmethod, classmethod, type)) and \
        module.startswith("ember.")


def _resolved_hook(base, name, wanted, handle):
    """The first read of a method's LazyAttribute: Tensor's method (and the one it is reported
    as) in place, if either was a stand-in (NOTE [op families load on first use]), and its
    hook."""
    getattr(base, name)
    getattr(base, REPORTED_AS.get(name, name), None)
    attr = vars(base)[name]
    key = (name, attr, wanted, handle)
    hook = _HOOKS.get(key)
    if hook is None or type(hook) is LazyAttribute:
        hook = _HOOKS[key] = _make_hook(base, name, attr, wanted, handle)
    return attr if hook is False else hook


def _make_hook(base, name, attr, wanted, handle):
    """The hook of Tensor attribute `name`, or False for one that is left alone."""
    if isinstance(attr, property):
        return _hook_property(attr, wanted, handle)
    if not _hookable(attr):
        return False
    reported = vars(base).get(REPORTED_AS.get(name, name), attr)
    return _hook_method(attr, reported, wanted, handle)
