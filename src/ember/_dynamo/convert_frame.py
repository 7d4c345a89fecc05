"""From a call of a compiled function to its result: look the code object up in the cache,
check each entry's guards, capture on a miss (symbolic_convert), hand the graph to the
backend, and replay — run the graph, write the side effects, rebuild the return value or
run the break instruction and go on in the resume function.

NOTE [how capture runs]: capture is PyTorch's TorchDynamo design, reached from Python.
- What runs: the function's bytecode, interpreted symbolically (symbolic_convert.py) over
  VariableTrackers. Tensor ops run on fake tensors and become FX nodes; the Python around
  them (containers, attributes, loops over known lengths, calls of user functions and module
  forwards, which are inlined) runs during capture and leaves guards (guards.py) for every
  fact it read. Side effects on objects from outside (list and dict changes, module
  attributes, globals) are recorded and written by the replay after the graph runs, on
  every call — why a tracing-only capture was not chosen: it runs the Python once, so on the
  second call an appended global list stays short, a print is silent and a branch on a
  tensor keeps its first direction (benchmarks/bench_compile.py measures all three:
  bytecode capture matches eager, tracing-only does not).
- How it is reached: PyTorch installs a frame-evaluation hook (PEP 523, in C) that sees every
  Python frame. ember is pure Python, so `ember.compile` returns a wrapper that looks the
  code object up in a cache (one list of guarded entries per code object) and captures on
  a miss. Consequence: a function called from compiled code is reached only by inlining;
  where inlining stops (a graph break inside it), the callee runs as its own compiled frame
  because the break step calls it through this wrapper, which is what PyTorch's hook would
  do, but a callee called from eager code is never captured.
- Graph breaks: anything capture cannot record faithfully raises Unsupported. The capture
  runs again up to that instruction (of the compiled frame; a break inside an inlined call
  breaks at the call), the graph so far is compiled, and the replay rebuilds the stack and
  the live locals, runs that one instruction for real (break_step.py) and calls a resume
  function — the frame's own bytecode behind a prologue that restores the stack and jumps
  past the break (resume.py) — through the same wrapper, so the rest is captured in turn.
  Frames that cannot be split run eagerly whole, the reason logged: a break inside a loop
  (as PyTorch skips such frames), in a frame with try/with blocks or cell variables, or at
  an instruction break_step cannot run. `fullgraph=True` raises the first Unsupported.
- Never a silent wrong result: a guard failure recaptures (up to config.recompile_limit,
  then the code runs eagerly with one warning naming the failing guard); Python other than
  3.11 runs eagerly, said once.
"""
from __future__ import annotations

import contextlib
import inspect
import sys

from ember._dynamo import _logging, config, dynamic
from ember._dynamo.break_step import NULL, STEPPABLE, is_capturable, run_instruction
from ember._dynamo.exc import Unsupported
from ember._dynamo.guards import compile_check, compile_fetch, first_failure
from ember._dynamo.output_graph import OutputGraph
from ember._dynamo.resume import can_resume, in_loop, resume_function
from ember._dynamo.source import LocalSource
from ember._dynamo.symbolic_convert import InstructionTranslator
from ember._dynamo.variables.base import LazyVariable, NullVariable

SUPPORTED_PYTHON = (3, 11)
_PYTHON = sys.version_info[:2]
# Keyed by id(code) (a code object's own hash reads its whole bytecode); the values keep the
# code alive, so the id stays its own.
_CACHE = {}       # id(code) -> (code, [CacheEntry])
_EAGER = {}       # id(code) -> (code, why it runs eagerly)
_said = set()
_state = {"compiling": 0}
RECORDERS = []    # explain()'s listeners


class CompileConfig:
    """What one `ember.compile` call chose: the backend function, `fullgraph` and `dynamic`
    (NOTE [dynamic dimensions])."""

    def __init__(self, backend, fullgraph, dynamic=None):
        self.backend = backend
        self.fullgraph = fullgraph
        self.dynamic = dynamic


class CacheEntry:
    """One capture of a code object: its guards and the replay that stands for the frame."""

    __slots__ = ("backend", "guards", "replay", "check")

    def __init__(self, backend, guards, replay):
        self.backend = backend
        self.guards = guards
        self.replay = replay
        self.check = compile_check(guards)      # NOTE [guards as one function]


def is_compiling() -> bool:
    return _state["compiling"] > 0


@contextlib.contextmanager
def _compiling():
    _state["compiling"] += 1
    try:
        yield
    finally:
        _state["compiling"] -= 1


def reset() -> None:
    from ember._dynamo import resume
    dynamic.reset()
    _POSITIONAL.clear()
    _CACHE.clear()
    _EAGER.clear()
    _said.clear()
    resume.clear()


def say_once(key, message, *args):
    if key not in _said:
        _said.add(key)
        _logging.log.warning(message, *args)


def call_compiled(fn, args, kwargs, settings):
    """Call `fn` as compiled code: a guarded cache entry, a new capture, or eagerly."""
    if _PYTHON != SUPPORTED_PYTHON:
        say_once("version", "ember.compile captures CPython %d.%d bytecode only; on Python "
                  "%d.%d compiled functions run eagerly", *SUPPORTED_PYTHON,
                  *sys.version_info[:2])
        return fn(*args, **kwargs)
    code = fn.__code__
    key = id(code)
    if key in _EAGER:
        return fn(*args, **kwargs)
    arguments = _bind(fn, args, kwargs)
    if arguments is None:
        return fn(*args, **kwargs)   # a bad call: the eager call raises its TypeError
    frame = (arguments, None)
    cached = _CACHE.get(key)
    if cached is None:
        cached = _CACHE[key] = (code, [])
    entries = cached[1]
    failed = failed_entry = None
    for entry in entries:
        if entry.backend is settings.backend:
            if entry.check(frame):
                return entry.replay(arguments)
            failed_entry = entry
            failed = first_failure(entry.guards, frame)
    if entries:
        where = f"{code.co_name} ({code.co_filename}:{code.co_firstlineno})"
        if len(entries) >= config.recompile_limit:
            _EAGER[key] = (code, "recompile limit")
            _logging.log.warning(
                "ember._dynamo hit config.recompile_limit (%d)\n   function: %s\n   last "
                "reason: %s\nIt runs eagerly from now on. To log every recompile, set "
                "EMBER_LOGS=recompiles.", config.recompile_limit, where,
                failed.describe() if failed else "another backend")
            return fn(*args, **kwargs)
        if failed is not None and failed_entry is not None:
            # every input whose size alone changed, not only the first guard that failed
            # (as PyTorch's automatic dynamic marks them all in one recompile)
            for guard in failed_entry.guards:
                if guard is failed or (guard.kind == "TENSOR_MATCH" and
                                       first_failure([guard], frame) is not None):
                    dynamic.note_size_change(code, settings.dynamic, guard, frame)
        reason = failed.describe() if failed else "another backend"
        _logging.recompiles.debug("Recompiling function %s\n    triggered by the guard "
                                  "failure: %s", where, reason)
        for recorder in RECORDERS:
            recorder.recompiles.append((code.co_name, failed))
    entry = _capture(fn, arguments, settings)
    if entry is None:
        return fn(*args, **kwargs)
    entries.append(entry)
    return entry.replay(arguments)


_POSITIONAL = {}   # id(code) -> (code, its parameter names) for plain positional signatures


def _bind(fn, args, kwargs):
    code = fn.__code__
    known = _POSITIONAL.get(id(code))
    if known is not None and known[0] is code and not kwargs and len(args) == len(known[1]):
        return dict(zip(known[1], args))
    if not kwargs and code.co_flags & 0x0C == 0 and not code.co_kwonlyargcount and \
            len(args) == code.co_argcount:
        # (co_varnames is a new tuple at every read on 3.11)
        _POSITIONAL[id(code)] = (code, code.co_varnames[:code.co_argcount])
        return dict(zip(code.co_varnames, args))
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except TypeError:
        return None
    bound.apply_defaults()
    return dict(bound.arguments)


def _capture(fn, arguments, settings):
    """Capture `fn`'s frame for these arguments: a CacheEntry, or None after marking the
    code to run eagerly. A graph break first found in a full run is captured again up to the
    break instruction, which then splits the frame there."""
    code = fn.__code__
    stop_at = None
    with _compiling():
        for _attempt in range(2):
            output = OutputGraph(code, settings.dynamic)
            symbolic = {name: LazyVariable(value, LocalSource(name))
                        for name, value in arguments.items()}
            tx = InstructionTranslator(fn, symbolic, output, stop_at=stop_at)
            try:
                outcome = tx.run()
                return _make_entry(fn, tx, output, outcome, settings)
            except Unsupported as error:
                if settings.fullgraph:
                    raise
                offset = getattr(error, "offset", None)
                inst = None if offset is None else tx.instructions[tx.index_of[offset]]
                why_not = _why_not_split(code, tx, inst)
                _log_break(error, why_not)
                if why_not is not None or stop_at is not None:
                    _EAGER[id(code)] = (code, why_not or error.reason)
                    return None
                stop_at = offset
    return None


def _why_not_split(code, tx, inst):
    if inst is None:
        return "the break is outside the bytecode"
    reason = can_resume(code)
    if reason is not None:
        return reason
    if inst.opname not in STEPPABLE:
        return f"a graph break at {inst.opname} is not split"
    if in_loop(tx.instructions, inst.offset):
        return "a graph break in a for/while loop runs the whole frame eagerly"
    return None


def _log_break(error, why_not):
    frames = getattr(error, "user_stack", [])
    where = f"{frames[-1].filename}:{frames[-1].lineno}" if frames else "?"
    _logging.graph_breaks.debug("Graph break in user code at %s\nReason: %s%s", where,
                                error.reason, f"\n({why_not})" if why_not else "")
    for recorder in RECORDERS:
        recorder.break_reasons.append((error.reason, frames))


def _make_entry(fn, tx, output, outcome, settings):
    steps = output.side_effect_replay()
    if outcome[0] == "return":
        result = outcome[1].rebuild(output)
        tail = None
    else:
        tail = _break_tail(fn, tx, output, outcome[1], settings)
    gm = output.finish()
    compiled = None
    if gm is not None:
        _logging.graph_code.debug("TRACED GRAPH of %s\n%s", fn.__code__.co_name, gm.code)
        _logging.guards.debug("GUARDS of %s:\n%s", fn.__code__.co_name,
                              "\n".join(g.describe() for g in output.guards))
        for recorder in RECORDERS:
            recorder.graphs.append((gm, list(output.guards)))
        compiled = settings.backend(gm, list(output.example_inputs))
    fetch = compile_fetch(output.input_sources)     # NOTE [guards as one function]

    def replay(arguments):
        frame = (arguments, {})
        outputs = compiled(*fetch(frame)) if compiled is not None else ()
        for step in steps:
            step(frame, outputs)
        if tail is None:
            return result(frame, outputs)
        return tail(frame, outputs)
    return CacheEntry(settings.backend, output.guards, replay)


def _break_tail(fn, tx, output, inst, settings):
    """After the graph: rebuild the stack and locals, run the break instruction, call the
    resume function with them (captured in turn)."""
    stack_parts = [None if isinstance(v, NullVariable) else v.rebuild(output)
                   for v in tx.stack]
    varnames = fn.__code__.co_varnames
    # a break is never inside a loop, so a local is read again only by a later instruction
    read_later = {i.argval for i in tx.instructions if i.offset > inst.offset and
                  i.opname in ("LOAD_FAST", "DELETE_FAST")}
    live = {n: v for n, v in tx.locals.items() if n in read_later}
    local_parts = [live[n].rebuild(output) if n in live else None for n in varnames]
    unbound = tuple(n for n in varnames if n not in live)
    kw_names = tx.kw_names
    following = tx.instructions[tx.index_of[inst.offset] + 1].offset

    def call(callee, args, kwargs):
        if is_capturable(callee):
            return call_compiled(callee, args, kwargs, settings)
        return callee(*args, **kwargs)

    def tail(frame, outputs):
        stack = [NULL if p is None else p(frame, outputs) for p in stack_parts]
        local_values = [None if p is None else p(frame, outputs) for p in local_parts]
        target = run_instruction(inst, stack, kw_names, following, call)
        resume = resume_function(fn, target, tuple(v is NULL for v in stack), unbound)
        values = [v for v in stack if v is not NULL]
        return call_compiled(resume, (*local_values, *values), {}, settings)
    return tail
