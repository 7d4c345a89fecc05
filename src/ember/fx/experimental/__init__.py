"""`ember.fx.experimental`: tracing through the dispatcher (`proxy_tensor.make_fx`), as
torch.fx.experimental."""
