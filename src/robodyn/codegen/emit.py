"""Python source from a :class:`~robodyn.codegen.tape.Tape`.

Two flavours of the same straight-line program:

* ``numba``: a loop over samples, each a run of scalar statements, compiled
  with ``numba.njit(nogil=True, cache=True)``. Inputs are ``(N, k)`` arrays, the
  output an ``(N, m)`` array, and the kernel works on rows ``start:stop`` so two
  threads can share a batch. It returns the first row whose inputs or results
  are not finite, or -1.
* ``numpy``: the statements applied to whole ``(N,)`` columns (inputs ``(k, N)``),
  for machines without Numba. Temporaries are renamed by liveness so that only
  a few columns are alive at a time. It is the one NumPy back end of the tape:
  the kernels run it (:mod:`robodyn.codegen.kernel`) and so do the closed forms'
  NumPy functions (:func:`numpy_function`, :mod:`robodyn.symbolic.numeric`).

Both flavours run only the instructions the outputs need (:func:`live_ops`).
"""

from __future__ import annotations

from collections.abc import Sequence

from .tape import Tape, Var

_BINARY = {"add": "+", "sub": "-", "mul": "*", "div": "/"}


def live_ops(tape: Tape, outputs: Sequence) -> list[bool]:
    """``[i]``: whether instruction ``i`` of ``tape`` is needed for ``outputs`` (tape
    values or constants): the liveness pass of every back end."""
    needed = [False] * len(tape.ops)
    for out in outputs:
        if isinstance(out, Var):
            needed[out.i] = True
    for i in reversed(range(len(tape.ops))):
        if needed[i]:
            for arg in tape.ops[i][1:]:
                if isinstance(arg, tuple) and arg[0] == "v":
                    needed[arg[1]] = True
    return needed


def _const(x: float) -> str:
    text = repr(float(x))
    if text in ("inf", "-inf", "nan"):
        return f"float('{text}')"
    return f"({text})" if x < 0 else text


def _expression(op: tuple, name, lib: str) -> str:
    def arg(a):
        return name(a[1]) if a[0] == "v" else _const(a[1])

    kind = op[0]
    if kind in _BINARY:
        return f"{arg(op[1])} {_BINARY[kind]} {arg(op[2])}"
    if kind == "neg":
        return f"-{arg(op[1])}"
    if kind == "sign":
        return f"np.sign({arg(op[1])})"
    if kind == "pow":  # x**c, c a constant; NaN for x < 0 and fractional c in both flavours
        return f"{'np.power' if lib == 'np' else 'math.pow'}({arg(op[1])}, {arg(op[2])})"
    return f"{lib}.{kind}({arg(op[1])})"


def numba_source(
    tape: Tape, groups: Sequence[tuple[str, int]], outputs: Sequence, params: int = 0,
    fname: str = "kernel",
) -> str:
    """Source of a Numba kernel ``fname(A0, A1, ..., P, OUT, start, stop) -> int``.

    ``groups`` lists the per-sample input arrays as ``(prefix, width)``: input ``q3``
    is column 3 of the array of prefix ``q``. ``P`` holds the model's ``params``
    parameter values (inputs ``p0, p1, ...``), the same for every sample.
    """
    live = live_ops(tape, outputs)
    arrays = {prefix: f"A{k}" for k, (prefix, _) in enumerate(groups)}
    lines = [
        "import math",
        "import numpy as np",
        "from numba import njit",
        "",
        "",
        '@njit(nogil=True, cache=True, error_model="numpy")',
        f"def {fname}({', '.join([*arrays.values(), 'P', 'OUT', 'start', 'stop'])}):",
        "    bad = -1",
    ]
    lines += [f"    p{j} = P[{j}]" for j in range(params)]
    lines.append("    for k in range(start, stop):")
    checks = []
    for prefix, width in groups:
        for c in range(width):
            lines.append(f"        {prefix}{c} = {arrays[prefix]}[k, {c}]")
            checks.append(f"{prefix}{c}")
    if checks:
        lines.append(f"        chk = {' + '.join(checks)}")
        lines.append("        if chk - chk != 0.0 and bad < 0:")
        lines.append("            bad = k")

    def name(i):
        op = tape.ops[i]
        return op[1] if op[0] == "in" else f"t{i}"

    for i, op in enumerate(tape.ops):
        if live[i] and op[0] != "in":
            lines.append(f"        t{i} = {_expression(op, name, 'math')}")
    results = []
    for j, out in enumerate(outputs):
        value = name(out.i) if isinstance(out, Var) else _const(out)
        lines.append(f"        OUT[k, {j}] = {value}")
        if isinstance(out, Var):
            results.append(value)
    if results:  # a non-finite result of finite inputs (an overflow, a singular matrix)
        lines.append(f"        chk = {' + '.join(results)}")
        lines.append("        if chk - chk != 0.0 and bad < 0:")
        lines.append("            bad = k")
    lines.append("    return bad")
    return "\n".join(lines) + "\n"


def numpy_source(
    tape: Tape, groups: Sequence[tuple[str, int]], outputs: Sequence, params: int = 0,
    fname: str = "kernel",
) -> str:
    """Source of a vectorised kernel ``fname(A0, A1, ..., P, OUT)`` on ``(k, N)`` inputs,
    parameter values ``P`` and a ``(m, N)`` output (it only indexes them: ``A0[3]``,
    ``OUT[j] = ...``, so any sequences of broadcastable arrays serve too)."""
    live = live_ops(tape, outputs)
    last_use: dict[int, int] = {}
    for i, op in enumerate(tape.ops):
        if live[i]:
            for a in op[1:]:
                if isinstance(a, tuple) and a[0] == "v":
                    last_use[a[1]] = i
    out_ids = {out.i for out in outputs if isinstance(out, Var)}
    arrays = {prefix: f"A{k}" for k, (prefix, _) in enumerate(groups)}
    lines = [
        "import numpy as np",
        "",
        "",
        f"def {fname}({', '.join([*arrays.values(), 'P', 'OUT'])}):",
    ]
    arrays["p"] = "P"
    names: dict[int, str] = {}
    free: list[str] = []
    counter = 0
    dying: dict[int, list[int]] = {}
    for v, i in last_use.items():
        if v not in out_ids:
            dying.setdefault(i, []).append(v)
    for i, op in enumerate(tape.ops):
        if not live[i]:
            continue
        if op[0] == "in":
            prefix = op[1].rstrip("0123456789")
            names[i] = op[1]
            lines.append(f"    {op[1]} = {arrays[prefix]}[{op[1][len(prefix):]}]")
            continue
        expr = _expression(op, lambda j: names[j], "np")
        for v in dying.get(i, ()):
            if tape.ops[v][0] != "in":
                free.append(names[v])
        if free:
            target = free.pop()
        else:
            target = f"t{counter}"
            counter += 1
        names[i] = target
        lines.append(f"    {target} = {expr}")
    for j, out in enumerate(outputs):
        value = names[out.i] if isinstance(out, Var) else _const(out)
        lines.append(f"    OUT[{j}] = {value}")
    lines.append("    return OUT")
    return "\n".join(lines) + "\n"


def numpy_function(tape: Tape, groups: Sequence[tuple[str, int]], outputs: Sequence,
                   params: int = 0):
    """The :func:`numpy_source` kernel ``kernel(A0, A1, ..., P, OUT)``, compiled in
    memory from that text (nothing is written to or read from disk)."""
    namespace: dict = {}
    exec(compile(numpy_source(tape, groups, outputs, params), "<robodyn numpy kernel>",
                 "exec"), namespace)  # our own generated text
    return namespace["kernel"]
