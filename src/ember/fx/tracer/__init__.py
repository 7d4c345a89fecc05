"""Symbolic tracing: `Tracer`, `symbolic_trace`, `wrap` and `PH` (_symbolic_trace.py); the
Proxy those record with lives in ember/fx/proxy.py."""
from ember.fx.tracer._symbolic_trace import PH, PHBase, Tracer, symbolic_trace, wrap

__all__ = ["PH", "PHBase", "Tracer", "symbolic_trace", "wrap"]
