"""`ember.fx`: programs as graphs, as torch.fx. `Node`/`Graph` (node.py, graph.py) hold a
program, codegen.py writes it as Python, `GraphModule` (graph_module.py) runs it as a Module;
`Proxy` (proxy.py) and tracer/ record one by symbolic tracing; `Interpreter`/`Transformer`
(interpreter.py), subgraph_rewriter.py and passes/ run and rewrite graphs."""
from ember.fx import immutable_collections, node, passes, subgraph_rewriter  # noqa: F401
from ember.fx.graph import Graph
from ember.fx.graph_module import GraphModule
from ember.fx.interpreter import Interpreter, Transformer
from ember.fx.node import Node, map_arg
from ember.fx.proxy import Proxy, TraceError
from ember.fx.subgraph_rewriter import replace_pattern
from ember.fx.tracer import PH, Tracer, symbolic_trace, wrap

__all__ = ["PH", "Graph", "GraphModule", "Interpreter", "Node", "Proxy", "TraceError",
           "Tracer", "Transformer", "map_arg", "replace_pattern", "subgraph_rewriter",
           "symbolic_trace", "wrap"]
