"""An ExportedProgram as plain data for pickling (what `ember.export.save` writes): each graph
node with its target named (an op entry by namespace, name and overload; a Python function by
module and qualified name) and its arguments with other nodes named, rebuilt into a Graph on
load. (A GraphModule's own pickling re-traces its code, which op entries cannot take.)"""
from __future__ import annotations

import importlib


def _encode_target(target):
    from ember._core.dispatch.inplace_out import InplaceOp
    from ember._core.registry import OpDef
    if isinstance(target, OpDef):
        base, _, overload = target.name.partition(".")
        return ("op", target.namespace, base, overload or target._overloadname or "default")
    if isinstance(target, InplaceOp):
        return ("inplace", _encode_target(target.op))
    if isinstance(target, str):
        return ("str", target)
    return ("py", target.__module__, target.__qualname__)


def _decode_target(code):
    if code[0] == "str":
        return code[1]
    if code[0] == "inplace":
        from ember._core.dispatch.inplace_out import inplace_op
        return inplace_op(_decode_target(code[1]))
    if code[0] == "op":
        import ember
        packet = getattr(getattr(ember.ops, code[1]), code[2])
        return getattr(packet, code[3] or "default")
    found = importlib.import_module(code[1])
    for part in code[2].split("."):
        found = getattr(found, part)
    return found


def _encode_arg(value):
    from ember.fx import Node
    if isinstance(value, Node):
        return ("node", value.name)
    if isinstance(value, (list, tuple)):
        return ("list" if isinstance(value, list) else "tuple", [_encode_arg(v) for v in value])
    if isinstance(value, dict):
        return ("dict", {k: _encode_arg(v) for k, v in value.items()})
    return ("value", value)


def _decode_arg(code, env):
    kind, value = code
    if kind == "node":
        return env[value]
    if kind in ("list", "tuple"):
        items = [_decode_arg(v, env) for v in value]
        return items if kind == "list" else tuple(items)
    if kind == "dict":
        return {k: _decode_arg(v, env) for k, v in value.items()}
    return value


def encode(program) -> dict:
    gm = program.graph_module
    nodes = [(n.op, n.name, _encode_target(n.target), _encode_arg(n.args),
              _encode_arg(n.kwargs)) for n in gm.graph.nodes]
    constants = {name: getattr(gm, name) for op, name, target, *_ in nodes
                 if op == "get_attr" for name in [target[1]]}
    state = dict(vars(program))
    state.pop("graph_module")
    return {"nodes": nodes, "constants": constants, "state": state}


def decode(payload):
    from ember.export.exported_program import ExportedProgram
    from ember.fx import Graph, GraphModule
    from ember.nn import Module
    graph, env = Graph(), {}
    for op, name, target, args, kwargs in payload["nodes"]:
        node = graph.create_node(op, _decode_target(target), _decode_arg(args, env),
                                 _decode_arg(kwargs, env), name=name)
        env[name] = node
    root = Module()
    for name, tensor in payload["constants"].items():
        root.register_buffer(name, tensor)
    program = ExportedProgram.__new__(ExportedProgram)
    vars(program).update(payload["state"])
    program.graph_module = GraphModule(root, graph)
    return program
