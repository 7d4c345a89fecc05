"""Tensor subclasses the compiler stack builds on, as `torch._subclasses`:
`functional_tensor` (FunctionalTensor and FunctionalTensorMode, behind `ember.func.functionalize`)."""
