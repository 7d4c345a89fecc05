"""`ember.fx`: programs as graphs, as torch.fx. `Node`/`Graph` (node.py, graph.py) hold a
program, codegen.py writes it as Python, `GraphModule` (graph_module.py) runs it as a Module;
`Proxy` (proxy.py) and tracer/ record one from a Module or function by symbolic tracing."""
from ember.fx import immutable_collections, node  # noqa: F401
from ember.fx.graph import Graph
from ember.fx.graph_module import GraphModule
from ember.fx.node import Node, map_arg
from ember.fx.proxy import Proxy, TraceError
from ember.fx.tracer import PH, Tracer, symbolic_trace, wrap

__all__ = ["PH", "Graph", "GraphModule", "Node", "Proxy", "TraceError", "Tracer", "map_arg",
           "symbolic_trace", "wrap"]
