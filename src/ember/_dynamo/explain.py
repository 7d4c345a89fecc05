"""`explain(fn)(*args)`: run `fn` compiled once and report what capture made of it — the
graphs, the graph breaks and their reasons, the ops per graph, the guards (PyTorch's
ExplainOutput fields)."""
from __future__ import annotations

import functools

from ember._dynamo import convert_frame


class GraphCompileReason:
    """Why a graph ended: the break's reason and the user frames it happened in."""

    def __init__(self, reason, user_stack, graph_break=True):
        self.reason = reason
        self.user_stack = user_stack
        self.graph_break = graph_break

    def __repr__(self):
        return f"GraphCompileReason(reason={self.reason!r}, user_stack={self.user_stack!r}, " \
               f"graph_break={self.graph_break})"


class ExplainOutput:
    def __init__(self, graphs, break_reasons, guards):
        self.graphs = graphs
        self.graph_count = len(graphs)
        self.break_reasons = break_reasons
        self.graph_break_count = len(break_reasons)
        self.ops_per_graph = [[n.target for n in gm.graph.nodes if n.op == "call_function"]
                              for gm in graphs]
        self.op_count = sum(len(ops) for ops in self.ops_per_graph)
        self.out_guards = guards
        self.compile_times = ""

    def __str__(self):
        lines = [f"Graph Count: {self.graph_count}",
                 f"Graph Break Count: {self.graph_break_count}",
                 f"Op Count: {self.op_count}", "Break Reasons:"]
        for i, reason in enumerate(self.break_reasons):
            lines.append(f"  Break Reason {i + 1}:\n    Reason: {reason.reason}")
        lines.append("Ops per Graph:")
        for i, ops in enumerate(self.ops_per_graph):
            lines.append(f"  Ops {i + 1}:")
            lines.extend(f"    {getattr(op, '__name__', op)}" for op in ops)
        return "\n".join(lines)


class _Recorder:
    def __init__(self):
        self.graphs = []
        self.break_reasons = []
        self.recompiles = []


def explain(fn, *extra_args, **extra_kwargs):
    """`explain(fn)(*args, **kwargs)` -> ExplainOutput (`fn` runs once, compiled afresh with
    the eager backend)."""
    from ember._dynamo.eval_frame import compile_entry

    def recording_backend(gm, example_inputs):
        return gm.forward

    @functools.wraps(fn)
    def run(*args, **kwargs):
        recorder = _Recorder()
        convert_frame.RECORDERS.append(recorder)
        try:
            compile_entry(fn, backend=recording_backend)(*args, **kwargs)
        finally:
            convert_frame.RECORDERS.remove(recorder)
        guards = [g for _, entry_guards in recorder.graphs for g in entry_guards]
        return ExplainOutput([gm for gm, _ in recorder.graphs],
                             [GraphCompileReason(r, s) for r, s in recorder.break_reasons],
                             guards)
    if extra_args or extra_kwargs:
        return run(*extra_args, **extra_kwargs)
    return run
