"""`ember.fx`: programs as graphs, as torch.fx. `Node`/`Graph` (node.py, graph.py) hold a
program, codegen.py writes it as Python, `GraphModule` (graph_module.py) runs it as a Module;
tracer/ records one from a Module by symbolic tracing (`Proxy`, `Tracer`, `symbolic_trace`)."""
from ember.fx.graph import Graph
from ember.fx.graph_module import GraphModule
from ember.fx.node import Node, map_arg

__all__ = ["Graph", "GraphModule", "Node", "map_arg"]
