"""`immutable_list` / `immutable_dict`: the containers a Node keeps its arguments in, so that
editing a node's arguments goes through `node.args = ...` (which keeps `users` right) instead
of mutating them in place."""
from __future__ import annotations

_MUTATION_ERROR = (
    "'{}' object does not support mutation. If you are attempting to modify the kwargs or "
    "args of a torch.fx.Node object,\ninstead create a new copy of it and assign the copy to "
    "the node:\n\n    new_args = ...  # copy and mutate args\n    node.args = new_args")


def _refuse(self, *args, **kwargs):
    raise TypeError(_MUTATION_ERROR.format(type(self).__name__))


class immutable_list(list):
    """A list that refuses in-place changes and hashes by its items."""

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = pop = remove = clear = reverse = sort = _refuse

    def __hash__(self):
        return hash(tuple(self))

    def __reduce__(self):
        return (immutable_list, (list(self),))


class immutable_dict(dict):
    """A dict that refuses in-place changes and hashes by its items."""

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __hash__(self):
        return hash(tuple(self.items()))

    def __reduce__(self):
        return (immutable_dict, (dict(self),))
