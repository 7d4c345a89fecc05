"""`ember.optim.lr_scheduler`: learning-rate schedules (the base in _lr_base.py, multiplicative
ones in _lr_simple.py, cyclic ones in _lr_cyclic.py, metric-driven and composite ones in
_lr_composite.py)."""
from ember.optim._lr_base import EPOCH_DEPRECATION_WARNING, LRScheduler, _LRScheduler
from ember.optim._lr_composite import ChainedScheduler, ReduceLROnPlateau, SequentialLR
from ember.optim._lr_cyclic import CosineAnnealingWarmRestarts, CyclicLR, OneCycleLR
from ember.optim._lr_simple import (
    ConstantLR,
    CosineAnnealingLR,
    ExponentialLR,
    LambdaLR,
    LinearLR,
    MultiplicativeLR,
    MultiStepLR,
    PolynomialLR,
    StepLR,
)

__all__ = ["EPOCH_DEPRECATION_WARNING", "ChainedScheduler", "ConstantLR", "CosineAnnealingLR",
           "CosineAnnealingWarmRestarts", "CyclicLR", "ExponentialLR", "LRScheduler",
           "LambdaLR", "LinearLR", "MultiStepLR", "MultiplicativeLR", "OneCycleLR",
           "PolynomialLR", "ReduceLROnPlateau", "SequentialLR", "StepLR", "_LRScheduler"]
