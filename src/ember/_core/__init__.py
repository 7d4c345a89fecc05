"""ember's core: dtypes, devices, storage, type promotion, the op registry and the dispatcher.

Nothing here imports from the rest of ember at import time but the back-ends (ember._backends:
the array modules the dispatcher runs kernels on), which at load time import only from here;
`OpDef.overloadpacket` reaches up to `ember.ops` on use.
"""
