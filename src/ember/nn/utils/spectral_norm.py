"""(being written)"""
def spectral_norm(*a, **k): raise NotImplementedError
remove_spectral_norm = spectral_norm
