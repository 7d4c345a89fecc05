"""The expand() every parametrised family shares: the named parameters expanded to the new
batch shape (views, no copies), validation state carried over."""
from __future__ import annotations

import ember
from ember.distributions.distribution import Distribution


def expand_params(self, cls, batch_shape, names, _instance=None):
    """A new `cls` instance like `self` with each of `names` that is set on `self` expanded to
    `batch_shape` (a parameter's dims right of the batch dims, like a Categorical's K, kept);
    the caller sets anything else (derived attributes)."""
    new = self._get_checked_instance(cls, _instance)
    batch_shape = ember.Size(batch_shape)
    batch_ndim = len(self.batch_shape)
    for name in names:
        if name in self.__dict__:
            value = self.__dict__[name]
            setattr(new, name, value.expand(batch_shape + value.shape[batch_ndim:]))
    Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
    new._validate_args = self._validate_args
    return new
