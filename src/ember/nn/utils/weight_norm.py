"""(being written)"""
def weight_norm(*a, **k): raise NotImplementedError
remove_weight_norm = weight_norm
