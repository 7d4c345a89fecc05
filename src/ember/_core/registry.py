"""The op registry: one `OpDef` per operator overload, declared once in its family file.

An entry carries its schema (PyTorch's syntax), its kind (how the dispatcher runs it:
pointwise, reduction, view, generic, factory), its type-promotion kind, tags, its kernel over the
array module `xp`, its meta rule, its derivative formulas (read by autograd) and its docstring.
`tools/gen_bindings.py` reads the registry and writes the `ember.*` functions and `Tensor`
methods into `ember/_generated/`; `ember/_core/docs.py` gives them the entries' docstrings.
"""
from __future__ import annotations

import threading

from ember._core.kernel_table import STRIDED, DispatchKey, KernelTable, checked_key

# Elementwise type-promotion kinds (as in PyTorch's ELEMENTWISE_TYPE_PROMOTION_KIND).
DEFAULT = "default"
INT_TO_FLOAT = "int_to_float"
ALWAYS_BOOL = "always_bool"
COMPLEX_TO_FLOAT = "complex_to_float"
BOOL_TO_LONG = "bool_to_long"
NO_PROMOTION = "no_promotion"     # every tensor operand must already share one dtype

KINDS = ("pointwise", "reduction", "view", "generic", "factory")

# NOTE [wide unsigned dtypes]: PyTorch 2.13 has CPU kernels for uint16/uint32/uint64 in only a
# few pointwise ops (the rest raise NotImplementedError, e.g. '"add_stub" not implemented for
# 'UInt32''); ops that compute in a float dtype take them anyway. The entries of the few are
# tagged "wide_unsigned" (read off PyTorch 2.13 by calling each op on uint16/32/64 tensors);
# the dispatcher refuses the others when they would compute in such a dtype.

# Kinds whose kernels compute on values and so may meet NumPy's floating-point errors: their
# entries get the tag "fp_errors" unless they say "no_fp_errors" (NOTE [floating-point
# warnings] in fp_errors.py); an entry of another kind that computes says "fp_errors" itself.
_COMPUTING_KINDS = frozenset(("pointwise", "reduction"))

OPS: dict = {}          # "add.Tensor" -> OpDef
FRONTENDS: dict = {}    # python name -> Frontend (hand-written argument handling)


class OpDef:
    """Everything about one operator overload."""

    __slots__ = (
        "_build",
        "aliases",
        "compute_in_float",
        "decomposition",
        "deprecated_forms",
        "derivatives",
        "differentiable",
        "doc",
        "dunders",
        "forms",
        "function",
        "inplace",
        "kernel",
        "kernels",
        "kind",
        "list_positions",
        "meta",
        "method",
        "name",
        "namespace",
        "node_name",
        "num_outputs",
        "out",
        "promotion",
        "python_name",
        "quiet",
        "raw_kernel",
        "redirect",
        "runner",
        "saves",
        "schema",
        "table",
        "tags",
        "tensor_positions",
        "varargs",
    )

    def __init__(self, schema, kernel, *, kind="generic", promotion=None, tags=(),
                 meta=None, derivatives=None, doc=None, method=True, function=True,
                 inplace=False, out=None, dunders=None, python_name=None, varargs=None,
                 aliases=(), compute_in_float=True, differentiable=True, saves=None,
                 node_name=None, deprecated_forms=()):
        self._build = None
        if kind not in KINDS:
            raise ValueError(f"register_op: unknown kind {kind!r}")
        # (imported here: `import ember` builds no entry, and the parser's dataclasses are
        # ~1.5 ms of its import, NOTE [op entries are built on first use])
        from ember._core.schema import parse_schema
        self.schema = parse_schema(schema)
        self.name = self.schema.full_name
        self.namespace = "aten"        # a user's op (ember.library): its library's namespace
        self.python_name = python_name or self.schema.name
        self.kind = kind
        self.promotion = promotion if promotion is not None else (
            DEFAULT if kind == "pointwise" else None)
        tags = frozenset(tags) | {kind}
        if kind in _COMPUTING_KINDS and "no_fp_errors" not in tags:
            tags |= {"fp_errors"}
        self.tags = tags
        # NOTE [floating-point warnings]: `kernel` runs quietly wherever it is called; the
        # dispatcher's fast paths call `raw_kernel` through the thread's quiet runner inline.
        self.quiet = kernel is not None and "fp_errors" in tags
        self.meta = meta
        self.derivatives = derivatives
        self.doc = doc if doc is not None else (kernel.__doc__ if kernel else None)
        self.method = method
        self.function = function
        self.inplace = inplace
        returns_tensor = self.schema.returns == ("Tensor",)
        self.out = returns_tensor and kind != "view" if out is None else out
        self.dunders = dunders or {}
        self.varargs = varargs
        self.aliases = tuple(aliases)
        self.compute_in_float = compute_in_float
        self.differentiable = differentiable
        # Names of the arguments (or "result" for every output, "result1" for one) the
        # derivative formulas read; autograd saves them with their versions. None: every
        # tensor argument.
        self.saves = saves
        # The autograd node's class name where PyTorch's differs from "<Name>Backward0": a
        # string, or f(args, outputs) -> string when it depends on the call (x.sum() is
        # SumBackward0, x.sum(0) SumBackward1).
        self.node_name = node_name
        # The old argument orders PyTorch's parser still takes, as argument names: NOTE
        # [deprecated argument orders] (deprecated_forms.py).
        self.deprecated_forms = tuple(tuple(n.strip() for n in form.split(","))
                                      for form in deprecated_forms)
        args = self.schema.arguments
        self.tensor_positions = tuple(i for i, a in enumerate(args) if a.is_tensor)
        self.list_positions = tuple(i for i, a in enumerate(args) if a.is_tensor_list)
        self.num_outputs = len(self.schema.returns)
        self.runner = None             # set by the dispatcher when first called
        # PyTorch's CompositeImplicitAutograd ops: f(*args) in other ops, run above autograd
        # when a dispatch mode or subclass is active (NOTE [composites decompose under
        # modes]); set by ember._decomp, None for every other op.
        self.decomposition = None
        # ((numbers, when, form), ...) and, on a form, (base op, to_base): NOTE [overload
        # forms].
        self.forms = ()
        self.redirect = None
        # NOTE [the kernel table]: the kernel as written is the shared strided entry (every
        # device); back-ends, layouts and dtype extensions add theirs (`register_kernel`).
        # `raw_kernel` / `kernel` (the CPU entry) and `kernels` (device type -> strided kernel
        # as run) are the table's caches, kept current by `_refresh_kernels`.
        self.table = KernelTable(self)
        if kernel is not None:
            self.table.entries[DispatchKey(STRIDED, None)] = kernel
            if getattr(kernel, "host_kernel", False):
                # NOTE [host kernels]: the shared entry copies to the host and back; the CPU
                # entry is the kernel as written (no wrapper frame per call).
                self.table.entries[DispatchKey(STRIDED, "cpu")] = kernel.__wrapped__
        self._refresh_kernels()

    def __repr__(self) -> str:
        return f"<OpDef {self.name} ({self.kind})>"

    def __call__(self, *args, **kwargs):
        """Call the overload as `ember.ops.aten.<name>.<overload>` is called: below the
        __torch_function__ level (dispatch/stack.py), arguments by schema."""
        from ember._core.dispatch import call_aten
        if kwargs or len(args) != len(self.schema.arguments):
            args = self.bind(args, kwargs)
        return call_aten(self, args)

    def bind(self, args, kwargs) -> tuple:
        """Every schema argument positionally: `args` in order, then `kwargs` by name, then
        defaults."""
        params = self.schema.arguments
        unknown = set(kwargs) - {p.name for p in params}
        if unknown:
            raise TypeError(f"{self.name}() got an unexpected keyword argument "
                            f"'{sorted(unknown)[0]}'")
        positional = [p for p in params if not p.kwarg_only]
        if len(args) > len(positional):
            raise TypeError(f"{self.name}() takes {len(positional)} positional arguments but "
                            f"{len(args)} were given")
        bound = []
        for i, param in enumerate(params):
            if i < len(args) and not param.kwarg_only:
                if param.name in kwargs:
                    raise TypeError(f"{self.name}() got multiple values for argument "
                                    f"'{param.name}'")
                bound.append(args[i])
            elif param.name in kwargs:
                bound.append(kwargs[param.name])
            elif param.has_default:
                bound.append(param.default)
            else:
                raise TypeError(f"{self.name}() missing required argument '{param.name}'")
        return tuple(bound)

    # What a TorchDispatchMode reads off `func`, as off `torch.ops.aten.add.Tensor`.
    @property
    def __name__(self) -> str:
        return f"{self.schema.name}.{self.schema.overload or 'default'}"

    @property
    def _overloadname(self) -> str:
        return self.schema.overload or "default"

    @property
    def _schema(self):
        return self.schema

    @property
    def overloadpacket(self):
        from ember._core.aten import aten
        return getattr(aten, self.schema.name)

    def __str__(self) -> str:
        return f"{self.namespace}.{self.__name__}"

    def register_kernel(self, key, kernel) -> None:
        """Enter `kernel` in this op's table under `key`: a `DispatchKey`, a name as
        torch.library's ('CPU', 'CUDA', 'Meta', 'SparseCPU', 'PrivateUse1' ...) or a device
        type ('npdev'). NOTE [the kernel table] says what each kind of entry is called with."""
        self.table.register(key, kernel)

    def impl(self, key):
        """Decorator form of `register_kernel`, as torch.library's `impl`."""
        def decorate(kernel):
            self.register_kernel(key, kernel)
            return kernel
        return decorate

    def kernel_for(self, device_type: str):
        """The strided kernel a call on `device_type` runs (as run: quiet where the op
        computes), or None; cached in `kernels`."""
        found = self.kernels.get(device_type)
        if found is None:
            found = self.table.running(device_type)
            if found is not None:
                self.kernels[device_type] = found
        return found

    def _refresh_kernels(self) -> None:
        """The table's caches after a registration (NOTE [the kernel table])."""
        self.raw_kernel = self.table.resolve(STRIDED, "cpu")
        self.kernel = self.table.running("cpu")
        self.kernels = {}


class Frontend:
    """A hand-written Python entry point (argument parsing across overloads)."""

    __slots__ = (
        "dunders",
        "forms",
        "function",
        "inplace_method",
        "is_function",
        "method",
        "module",
        "name",
    )

    def __init__(self, name, function, method, is_function, inplace_method, dunders, module):
        self.name = name
        self.function = function
        self.method = method
        self.is_function = is_function
        self.inplace_method = inplace_method
        self.dunders = dunders
        self.module = module


def register_op(schema: str, **options):
    """Decorator for a kernel `f(xp, *args)`: declare the op and keep the kernel as it is.
    The entry is built on first use (NOTE [op entries are built on first use])."""
    def decorate(kernel):
        declare(schema, lambda op: OpDef.__init__(op, schema, kernel, **options), kernel,
                options)
        return kernel
    return decorate


# NOTE [op entries are built on first use]: building an `OpDef` (parsing its schema, its
# kernel table, its tags) for the ~850 entries cost about a quarter of `import ember`, and a
# program calls a few dozen ops. `declare` enters a `_DeclaredOp` in OPS instead: the same
# object the entry will be (bindings, kernel tables and `OPS[name] is op` keep it), holding its
# name, the fields the docstrings read (python_name, doc, function, method, inplace, dunders)
# and how to build the rest. Every other slot of `_DeclaredOp` is a property that builds the
# entry first (`_build_declared`, under a lock, so another thread waits for the whole entry),
# then the object's class becomes `OpDef`: from then on its slots are plain slots, so a built
# op costs nothing more per call. Hooks that must see every entry (the bindings' runners, the
# complex32 entries) are registered with `on_built` and run on each entry as it is built.
# `OpDef(...)` itself still builds at once (tests, the generator).

_BUILD_LOCK = threading.RLock()
_ON_BUILT: list = []


def _build_declared(op) -> None:
    family = OpDef._build.__get__(op)
    if type(family) is _Family:         # NOTE [op families load on first use]
        # (outside the lock: the import system orders two threads importing one family)
        family.load()                   # (its `declare` replaces `_build`, or builds it)
        if type(OpDef._build.__get__(op)) is _Family:
            raise RuntimeError(f"{op.name}: its op family {family.modules} did not declare it "
                               "(run tools/gen_bindings.py)")
    with _BUILD_LOCK:
        build = OpDef._build.__get__(op)
        if build is None:       # built meanwhile, or being built by this thread (re-entry)
            return
        OpDef._build.__set__(op, None)
        build(op)
        OpDef._build.__set__(op, None)
        for key, entry in (*_PENDING_KERNELS.pop(op.name, ()), *_LATE_KERNELS.pop(op.name, ())):
            OpDef.register_kernel(op, key, entry)
        op.__class__ = OpDef
        for hook in _ON_BUILT:
            hook(op)


class _DeclaredOp(OpDef):
    """An op entry declared but not built yet (NOTE [op entries are built on first use])."""

    __slots__ = ()

    def register_kernel(self, key, kernel) -> None:
        """The key is checked now and the kernel entered when the entry is built, after the
        entries its family files make (a plug-in's kernels at `import ember` build nothing)."""
        _LATE_KERNELS.setdefault(self.name, []).append((checked_key(key), kernel))


_LIGHT = ("name", "python_name", "doc", "function", "method", "inplace", "dunders")


def _building_slot(slot):
    def get(op):
        _build_declared(op)
        return slot.__get__(op, OpDef)

    def set_(op, value):
        _build_declared(op)
        slot.__set__(op, value)

    return property(get, set_)


for _slot in OpDef.__slots__:
    if _slot not in _LIGHT and _slot != "_build":
        setattr(_DeclaredOp, _slot, _building_slot(OpDef.__dict__[_slot]))


def declare(schema: str, build, kernel, options) -> OpDef:
    """Enter the op of `schema` in OPS, to be built by `build(op)` on first use (NOTE [op
    entries are built on first use]); `kernel` and `options` give the fields read before."""
    name = schema.split("(", 1)[0].strip()
    op = OPS.get(name)
    if op is not None and not _indexed(op):
        raise ValueError(f"register_op: {name} is declared twice")
    if op is None:
        op = _DeclaredOp.__new__(_DeclaredOp)
    op._build = build
    op.name = name
    op.python_name = options.get("python_name") or name.partition(".")[0]
    doc = options.get("doc")
    op.doc = doc if doc is not None else (kernel.__doc__ if kernel else None)
    op.function = options.get("function", True)
    op.method = options.get("method", True)
    op.inplace = options.get("inplace", False)
    op.dunders = options.get("dunders") or {}
    OPS[name] = op
    return op


def on_built(hook) -> None:
    """Run `hook(op)` on every op entry built so far and on each one built later."""
    _ON_BUILT.append(hook)
    for op in list(OPS.values()):
        if type(op) is not _DeclaredOp:
            hook(op)


def build_all(ops=None) -> None:
    """Build every declared entry (of `ops`, else of OPS) now (tools and tests that read every
    field of every op)."""
    for op in list(OPS.values() if ops is None else ops):
        if type(op) is _DeclaredOp:
            _build_declared(op)


# NOTE [overload forms]: PyTorch's parser sends `x == 0`, `x ** 2`, `1 - x`, `lerp(a, b, 0.5)`
# to an overload taking a Scalar (eq.Scalar, pow.Tensor_Scalar, rsub.Scalar, lerp.Scalar), and
# `x.mean()` / `x.sum()` to the overloads without a dim (mean.default, sum.default); ember runs
# all of them on one op (eq.Tensor, mean.dim), whose kernels take a number operand or no dim as
# they are. A form is such an overload as an op entry of its own, under PyTorch's schema, offered
# to a TorchDispatchMode or `__torch_dispatch__` subclass in place of the base op when the call
# fits it (`numbers`: the arguments at these positions are all numbers; or `when(args)`):
# stack.dispatch_level. Called (by the mode, or as ember.ops.aten.eq.Scalar), a form runs its
# base op on the base's arguments (`to_base(args)`, the same ones when None), so it has no
# kernel, rule or formula to keep in step; an overload called by name (a decomposition's
# `aten.sum.dim_IntList(x, [])`) reaches a mode as itself (stack.call_aten). Modes, fake
# tensors and traced graphs see PyTorch's overload; the plain path never looks.

def register_form(base: str, schema: str, *, numbers: tuple = (), when=None,
                  to_base=None, saves=None) -> OpDef:
    """Declare `schema` as a form of the op `base` (NOTE [overload forms]); `saves`: what
    PyTorch's formulas for the form read, where that is its "result"."""
    op = OPS[base]
    name = schema.split("(", 1)[0].strip()
    form = OPS.get(name)
    if form is not None and not _indexed(form):
        raise ValueError(f"register_form: {name} is declared twice")
    if form is None:
        form = OpDef.__new__(OpDef)
    form.__class__ = OpDef      # (an indexed entry becomes the form in place: bindings hold it)
    OpDef.__init__(form, schema, None, kind=op.kind, promotion=op.promotion, tags=op.tags,
                   meta=op.meta, method=False, function=False, out=False,
                   differentiable=op.differentiable, saves=saves,
                   doc=f"{name}: {op.name} as PyTorch names the call (NOTE [overload forms]).")
    form.redirect = (op, to_base)
    OPS[name] = form
    op.forms += ((tuple(numbers), when, form),)
    return form


# Entries for ops not declared yet (a family file may register a kernel for an op of a family
# imported after it): name -> [(key, kernel)], entered when the op is declared.
_PENDING_KERNELS: dict = {}
# Kernels entered through a declared entry's `register_kernel` (a plug-in's, a user's): entered
# after the family files' own when it is built, as they would be had the family been imported.
_LATE_KERNELS: dict = {}


def register_kernel(op_name: str, key, kernel) -> None:
    """Enter `kernel` in the kernel table of op `op_name` ("add.Tensor") under `key` (NOTE [the
    kernel table]); an op not declared yet gets it when it is."""
    op = OPS.get(op_name)
    if op is None or type(op) is _DeclaredOp:     # (entered when the op is built)
        _PENDING_KERNELS.setdefault(op_name, []).append((key, kernel))
    else:
        op.register_kernel(key, kernel)


def kernel_entry(op_name: str, key):
    """Decorator form of `register_kernel` for a family file (NOTE [the kernel table]): the
    op need not be declared yet, and a declared one is not built for it."""
    def decorate(kernel):
        register_kernel(op_name, key, kernel)
        return kernel
    return decorate


def register_frontend(name=None, *, method=True, function=True, inplace=None, dunders=None):
    """Decorator for a hand-written `ember.<name>` function that is also a Tensor method.

    `method` may be True (the same function, `self` first), False, or another function.
    """
    def decorate(fn):
        python_name = name or fn.__name__
        entry = FRONTENDS.get(python_name)
        if entry is not None and type(entry) is not _IndexedFrontend:
            raise ValueError(f"register_frontend: {python_name} is declared twice")
        method_fn = fn if method is True else (method or None)
        indexed = entry is not None
        if entry is None:
            entry = Frontend.__new__(Frontend)
        entry.__class__ = Frontend        # (an indexed one becomes the frontend in place)
        Frontend.__init__(entry, python_name, fn, method_fn, function, inplace,
                          dunders or {}, fn.__module__)
        FRONTENDS[python_name] = entry
        for hook in _ON_INDEXED_FRONTEND if indexed else ():
            hook(entry)
        if function or method:
            _name_as_public(fn, python_name)
        if method_fn is not None:
            _name_as_public(method_fn, python_name)     # (a method of its own: squeeze's)
        _name_as_public(inplace, python_name + "_")
        for dunder, dunder_fn in (dunders or {}).items():
            _name_as_public(dunder_fn, dunder)
        return fn
    return decorate


def _name_as_public(fn, public_name) -> None:
    """Name a hand-written function as users reach it (`sub`, not `sub_function`), as
    __torch_function__ and tracebacks show it; the first public name a function gets stays."""
    if callable(fn) and hasattr(fn, "__code__") and not getattr(fn, "_public_named", False):
        fn.__name__ = fn.__qualname__ = public_name
        fn._public_named = True



# NOTE [op families load on first use]: most op family files (`_ops/`, LAZY in its
# `__init__.py`) are not imported by `import ember`: the generated index
# (`_generated/op_index.py`, written with the bindings by tools/gen_bindings.py) enters each of
# their op entries in OPS as a `_DeclaredOp` holding its light fields and a `_Family` as its
# build: the files that declare it or add to it (kernel entries, overload forms). The first
# read of any other field imports those files, whose `declare` (or `register_form`) takes the
# indexed object as its entry, and builds it: the same object throughout, so the bindings, the
# kernel tables and `OPS[name] is op` keep it, and a built op costs nothing more per call. The
# frontends of those files are `_IndexedFrontend`s in FRONTENDS likewise (every field but the
# name and module loads the file). Code that scans OPS for the light fields loads nothing;
# `load_families()` (`ember._ops`) imports every family for tools that need them all.

class _Family:
    """The op family files an indexed entry waits for."""

    __slots__ = ("modules",)

    def __init__(self, modules):
        self.modules = modules

    def load(self) -> None:
        import importlib
        for module in self.modules:
            importlib.import_module(module)


_ON_INDEXED_FRONTEND: list = []


def _indexed(op) -> bool:
    """Whether `op` is an indexed entry whose family has not declared it yet."""
    return type(op) is _DeclaredOp and type(OpDef._build.__get__(op)) is _Family


def declare_indexed(modules, rows) -> None:
    """Enter the op entries of the lazily loaded families `modules` (names of `_ops` files)
    from the generated index: rows of (name, python_name, doc, function, method, inplace,
    dunders, the indexes into `modules` of the files to import). NOTE [op families load on
    first use]."""
    families = {}
    for name, python_name, doc, function, method, inplace, dunders, which in rows:
        family = families.get(which)
        if family is None:
            family = families[which] = _Family(tuple(
                "ember._ops." + modules[i] for i in which))
        op = _DeclaredOp.__new__(_DeclaredOp)
        op._build = family
        op.name = name
        op.python_name = python_name
        op.doc = doc
        op.function = function
        op.method = method
        op.inplace = inplace
        op.dunders = dict(dunders)
        OPS[name] = op


class _IndexedFrontend(Frontend):
    """A frontend of a family not imported yet (NOTE [op families load on first use])."""

    __slots__ = ()


def _loading_slot(slot):
    def get(entry):
        if type(entry) is _IndexedFrontend:
            import importlib
            importlib.import_module(entry.module)
            if type(entry) is _IndexedFrontend:
                raise RuntimeError(f"{entry.module} did not declare the frontend {entry.name}"
                                   " (run tools/gen_bindings.py)")
        return slot.__get__(entry, Frontend)

    return property(get)


for _slot in Frontend.__slots__:
    if _slot not in ("name", "module"):
        setattr(_IndexedFrontend, _slot, _loading_slot(Frontend.__dict__[_slot]))


def declare_indexed_frontends(modules, rows) -> None:
    """Enter the frontends of the lazily loaded families: rows of (name, index into
    `modules`)."""
    for name, which in rows:
        entry = _IndexedFrontend.__new__(_IndexedFrontend)
        Frontend.name.__set__(entry, name)
        Frontend.module.__set__(entry, "ember._ops." + modules[which])
        FRONTENDS[name] = entry


def on_indexed_frontend(hook) -> None:
    """Run `hook(frontend)` on each indexed frontend as its family declares it (its docs)."""
    _ON_INDEXED_FRONTEND.append(hook)
