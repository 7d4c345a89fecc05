"""ember's core: dtypes, devices, storage, type promotion, the op registry and the dispatcher.

Nothing here imports from the rest of ember at import time except the in-tree back-ends
(`ember._backends`, which the dispatcher registers); `OpDef.overloadpacket` reaches up to
`ember.ops` on use.
"""
