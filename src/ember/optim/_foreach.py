"""The batched ("foreach") update of the element-wise optimizers not yet written in ops
(Adagrad, Adamax, NAdam, RAdam, Adadelta, ASGD, Rprop; SGD, Adam/AdamW and RMSprop run the
`_foreach_*` registry ops instead, NOTE [optimizer updates as ops] in _lists.py): the parameters
of a group that share a dtype and device are updated as a handful of whole-buffer array
operations instead of a Python loop of several array calls per parameter.

NOTE [flat optimizer state]: for each (param group, dtype, device) a `FlatBucket` keeps every
state buffer the algorithm names (exp_avg, momentum_buffer ...) as ONE flat array, and each
parameter's state tensor is a view into it (its `_data` re-pointed, the tensor object kept, so
`optimizer.state` and `state_dict()` still hold one tensor per parameter in PyTorch's layout).
The `step` counts, and the other 0-d entries an algorithm names (NAdam's mu_product, ASGD's eta
and mu), live in one flat array each the same way; values computed from them per parameter in
Python (bias corrections ...) become one float when every parameter's are equal and an array of
one value per element otherwise (`per_parameter`). A step then gathers the gradients and the
parameters into two persistent flat buffers (one concatenate each), runs the update on the flat
arrays, and copies each parameter's slice back into the parameter's own array (so a parameter
whose `.data` was replaced is simply read and written where it now lives). The parameters are
never re-homed into a shared buffer: other views of them stay valid.

The bucket is rebuilt when the set of parameters with gradients changes, or when a state
tensor is no longer the view it made (load_state_dict, or a user assigning a state entry);
this is checked every step by identity, one comparison per state tensor.

When the update does not read the parameters (no weight decay), they are not gathered: the
update leaves its change in the flat buffer and each parameter adds its slice (`p += change`,
the same last operation as the per-parameter path).

The update itself runs block by block over the flat buffers (`chunks`), writing into scratch
arrays with `out=` rather than allocating temporaries: a whole-buffer operation over a large
model streams every temporary through memory, which made a flat step slower than the
per-parameter loop on a GPT's few large tensors. The arithmetic and its order are those of the
per-parameter path, so both give the same numbers.
"""
from __future__ import annotations

from ember._backends import get_backend
from ember._core import dispatch
from ember.optim.optimizer import array_of

# Elements per block of a flat update: a block of each buffer an update touches (parameters,
# gradients, two or three state buffers, two scratch arrays) fits in a core's L2 cache, so the
# dozen passes an update makes run from cache rather than memory.
CHUNK = 1 << 15
# With foreach=None, parameters of this many elements or more keep the per-parameter path.
LARGE = 1 << 16


class FlatBucket:
    """The parameters of one (group, dtype, device) with their state kept flat."""

    def __init__(self, params, grads, states, keys, xp, scalar_keys=()):
        self.params = params
        self.grads = grads
        self.states = states
        self.keys = keys
        self.xp = xp
        sizes = [p._data.size for p in params]
        self.offsets = [0]
        for n in sizes:
            self.offsets.append(self.offsets[-1] + n)
        self.numel = self.offsets[-1]
        self.shapes = [p._data.shape for p in params]
        dtype = params[0]._data.dtype
        self.p_flat = xp.empty(self.numel, dtype)
        self.g_flat = xp.empty(self.numel, dtype)
        self.p_views = self._views(self.p_flat)
        self._scratch = None
        self._chunks = None
        self.flat = {}
        self._tensors = []           # (state dict, key, tensor, array it must hold)
        for key in keys:
            self.flat[key] = self._adopt(key, xp.concatenate(
                [array_of(s[key]).ravel() for s in states]))
        # the 0-d entries (`step`, and e.g. NAdam's mu_product) are one flat array each too
        self.scalars = {}
        for key in ("step",) + tuple(scalar_keys):
            if states[0] is None or key not in states[0]:
                continue
            values = xp.array([float(s[key]._data) for s in states],
                              dtype=states[0][key]._data.dtype)
            self.scalars[key] = values
            for i, s in enumerate(states):
                view = values[i:i + 1].reshape(())
                self._repoint(s[key], view)
                self._tensors.append((s, key, s[key], view))
        self.steps = self.scalars.get("step")

    def _views(self, flat):
        return [flat[a:b].reshape(shape)
                for a, b, shape in zip(self.offsets, self.offsets[1:], self.shapes)]

    def _adopt(self, key, flat):
        for s, view in zip(self.states, self._views(flat)):
            t = s[key]
            self._repoint(t, view)
            self._tensors.append((s, key, t, view))
        return flat

    @staticmethod
    def _repoint(t, view):
        old = t._storage
        t._data = view
        t._storage = None
        if old is not None:           # versions only go up (NOTE [views share one version counter])
            dispatch.bump_version(t)
            t._storage._version = old._version + 1

    def still_valid(self, grads, state) -> bool:
        dtype = self.p_flat.dtype
        for p, g, s in zip(self.params, grads, self.states):
            data = p._data
            if data.dtype != dtype or g._data.dtype != dtype or data.shape != g._data.shape \
                    or (s is not None and state.get(p) is not s):
                return False
        for s, key, t, view in self._tensors:
            if s.get(key) is not t or t._data is not view:
                return False
        return True

    def gather(self, params: bool = True):
        """(flat parameters, flat gradients), filled from the tensors. With `params` False the
        first buffer is left as it is: the update writes its change there (`scatter`)."""
        xp = self.xp
        if params:
            xp.concatenate([p._data.ravel() for p in self.params], out=self.p_flat)
        xp.concatenate([g._data.ravel() for g in self.grads], out=self.g_flat)
        return self.p_flat, self.g_flat

    def scatter(self, how: str = "copy") -> None:
        """Write the flat buffer back into the parameters: "copy" (it holds the updated
        parameters), "add" or "subtract" (it holds the change); record the writes."""
        xp = self.xp
        write = {"copy": xp.copyto, "add": None, "subtract": None}[how]
        bump = dispatch.bump_version
        for p, view in zip(self.params, self.p_views):
            if write is not None:
                write(p._data, view)
            elif how == "add":
                p._data += view
            else:
                p._data -= view
            bump(p)
        for _s, _key, t, _view in self._tensors:
            bump(t)

    def chunks(self):
        """(start, stop) blocks of the flat buffers, each small enough that an update's
        temporaries stay in cache (NOTE [flat optimizer state]), and two scratch arrays of a
        block's size."""
        if self._scratch is None:
            size = min(self.numel, CHUNK)
            self._scratch = (self.xp.empty(size, self.p_flat.dtype),
                             self.xp.empty(size, self.p_flat.dtype))
            self._chunks = [(a, min(a + CHUNK, self.numel)) for a in range(0, self.numel, CHUNK)]
        return self._chunks, self._scratch

    def per_element(self, values, dtype):
        """One value per parameter (a list) spread over the parameter's elements."""
        xp = self.xp
        sizes = [b - a for a, b in zip(self.offsets, self.offsets[1:])]
        return xp.repeat(xp.asarray(values, dtype=dtype), sizes)

    def per_parameter(self, fn, *scalars, dtype):
        """fn(*values) of each parameter's scalar state values (step counts ...): one float
        when every parameter has the same values, else one value per element (in `dtype`,
        as a Python float meets a `dtype` array in the per-parameter path)."""
        if all(v.min() == v.max() for v in scalars):
            return fn(*(float(v[0]) for v in scalars))
        return self.per_element([fn(*map(float, values)) for values in zip(*scalars)], dtype)


def block(value, a, b):
    """A per-element value's block [a, b), or the value itself when it is one float."""
    return value if isinstance(value, float) else value[a:b]


def begin_block(xp, group, p, g, scratch, lr=0.0, decoupled=False) -> None:
    """`begin_update` of optimizer.py on a block: the gradient negated under `maximize`, then
    L2 weight decay added to it, or with `decoupled` the parameters shrunk."""
    if group["maximize"]:
        xp.negative(g, out=g)
    weight_decay = group.get("weight_decay", 0)
    if weight_decay != 0:
        if decoupled:
            p *= 1 - lr * weight_decay
        else:
            xp.multiply(p, weight_decay, out=scratch)
            g += scratch


def lerp_block(xp, start, end, weight, scratch) -> None:
    """`lerp_` of optimizer.py on a block, through a scratch array."""
    xp.subtract(end, start, out=scratch)
    if abs(weight) < 0.5:
        scratch *= weight
        start += scratch
    else:
        scratch *= 1 - weight
        xp.subtract(end, scratch, out=start)


def split_update(optimizer, group_index, params, grads, keys, init_state, scalar_keys=()):
    """(buckets, params, grads): the group's parameters with gradients that go flat, in
    buckets (rebuilt when needed), and the rest, for the per-parameter path.

    With the group's foreach=False nothing goes flat; with foreach=None the parameters of
    LARGE elements or more stay per-parameter too, since for them a loop's per-call cost is
    small and the flat path's copies are not; with foreach=True every parameter that can goes
    flat. Complex parameters, and gradients of another dtype, shape or device, never do.
    `init_state(param, state)` fills a new parameter's state; `scalar_keys` names the 0-d
    state entries besides `step` that go flat too."""
    foreach = optimizer.param_groups[group_index].get("foreach")
    if foreach is False:
        return (), params, grads
    flat_params, flat_grads, rest_params, rest_grads = [], [], [], []
    for p, g in zip(params, grads):
        data, gdata = p._data, g._data
        if p._dtype.is_complex or gdata.dtype != data.dtype or gdata.shape != data.shape or \
                g._device is not p._device or (foreach is None and data.size >= LARGE):
            rest_params.append(p)
            rest_grads.append(g)
        else:
            flat_params.append(p)
            flat_grads.append(g)
    if not flat_params:
        return (), rest_params, rest_grads
    return _buckets(optimizer, group_index, flat_params, flat_grads, keys, init_state,
                    scalar_keys), \
        rest_params, rest_grads


def _buckets(optimizer, group_index, params, grads, keys, init_state, scalar_keys):
    cache = optimizer.__dict__.setdefault("_flat_buckets", {})
    signature = (keys, scalar_keys, tuple(map(id, params)))
    found = cache.get(group_index)
    if found is not None and found[0] == signature:
        buckets = found[1]
        by_bucket = found[2]
        if all(b.still_valid([grads[i] for i in idx], optimizer.state)
               for b, idx in zip(buckets, by_bucket)):
            for b, idx in zip(buckets, by_bucket):
                b.grads = [grads[i] for i in idx]
            return buckets
    groups: dict = {}
    for i, p in enumerate(params):
        groups.setdefault((p._data.dtype, p._device), []).append(i)
    buckets, by_bucket = [], []
    for (_dtype, device), idx in groups.items():
        bucket_params = [params[i] for i in idx]
        states = []
        for p in bucket_params:
            state = None
            if keys:            # (an algorithm without state leaves `state` empty, as PyTorch)
                state = optimizer.state[p]
                if any(state.get(key) is None for key in keys):
                    init_state(p, state)
            states.append(state)
        xp = get_backend(device.type).xp
        buckets.append(FlatBucket(bucket_params, [grads[i] for i in idx], states, keys, xp,
                                  scalar_keys))
        by_bucket.append(idx)
    cache[group_index] = (signature, buckets, by_bucket)
    return buckets
