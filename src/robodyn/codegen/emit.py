"""Python source from a :class:`~robodyn.codegen.tape.Tape`.

Two flavours of the same straight-line program:

* ``numba``: a loop over samples, each a run of scalar statements, compiled
  with ``numba.njit(nogil=True, cache=True)``. Inputs are ``(N, k)`` arrays, the
  output an ``(N, m)`` array, and the kernel works on rows ``start:stop`` so two
  threads can share a batch. It returns the first row whose inputs or results
  are not finite, or -1. Single states and the simulation loops run it.
* ``numba`` blocked (:func:`numba_block_source`): the same statements in the same order
  on blocks of :data:`BLOCK` samples transposed into a small scratch array, each
  statement of the loop body applied to sample ``k`` of ``for k in range(BLOCK)``, a
  loop LLVM vectorises across samples (AVX2: 4 samples per instruction); calls into
  the C library (``sin``, ``cos``) run in their own loops. The same bits as the
  per-sample flavour; batches run it.
* ``numpy``: the statements applied to whole ``(N,)`` columns (inputs ``(k, N)``),
  for machines without Numba. Temporaries are renamed by liveness so that only
  a few columns are alive at a time. It is the one NumPy back end of the tape:
  the kernels run it (:mod:`robodyn.codegen.kernel`) and so do the closed forms'
  NumPy functions (:func:`numpy_function`, :mod:`robodyn.symbolic.numeric`).

Both flavours run only the instructions the outputs need (:func:`live_ops`).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence

from .tape import Tape, Var

_BINARY = {"add": "+", "sub": "-", "mul": "*", "div": "/"}
#: Operations LLVM turns into packed (SIMD) instructions; the others (``sin``, ``cos``,
#: ``pow``, ...) are calls into the C library, which do not vectorise.
_PACKED = {"add", "sub", "mul", "div", "neg", "sqrt", "sign"}
#: Sine and cosine: arithmetic of :mod:`robodyn.codegen.trig` in the compiled flavours (the
#: blocked one runs them packed, then the C library for the arguments they do not cover).
_TRIG = ("sin", "cos")


def _trig_digest() -> str:
    """:data:`TRIG_DIGEST` from the two files beside this module (importlib.resources, for a
    package that is not a folder of files, costs 4 ms of ``import robodyn``)."""
    texts = []
    for name in ("trig.py", "trig_numpy.py"):
        try:
            with open(os.path.join(os.path.dirname(__file__), name), "rb") as handle:
                texts.append(handle.read())
        except OSError:  # a zipped install
            from importlib import resources

            texts.append(resources.files(__package__).joinpath(name).read_bytes())
    return hashlib.sha256(b"".join(texts)).hexdigest()[:12]


#: The first 12 hex digits of the SHA-256 of :mod:`robodyn.codegen.trig`'s source (and of
#: :mod:`~robodyn.codegen.trig_numpy`'s, whose reduction and polynomials it compiles), in every
#: compiled kernel's text (the key of the kernel cache): an edit of trig.py is a new
#: kernel, not a stale cache entry, with no version to raise by hand. Read as a file of the
#: package, not imported: trig imports Numba, this module does not.
TRIG_DIGEST = _trig_digest()
#: Arguments at most this large in magnitude take :mod:`~robodyn.codegen.trig`'s reduction
#: (``2^20 pi/2`` is fdlibm's bound for its three-part ``pi/2``; 1.5 * 2^20 is below it);
#: larger ones, infinity and NaN the C library's ``sin`` and ``cos``.
TRIG_LIMIT = 1572864.0
#: The header of a compiled kernel module.
_HEADER = ["import math", "import numpy as np", "from numba import njit",
           f"from robodyn.codegen import trig  # trig {TRIG_DIGEST}"]
#: Samples per block of a blocked kernel (:func:`numba_block_source`): 4 AVX2 vectors.
BLOCK = 16
#: A kernel with more outputs than this writes them through a scratch row and a table
#: (:func:`numba_source`).
GATHER_MIN_OUTPUTS = 64


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


def _operand(a: tuple, name) -> str:
    """An instruction's argument ``a`` as text: a tape value's name, or a constant."""
    return name(a[1]) if a[0] == "v" else _const(a[1])


def _expression(op: tuple, name, lib: str, packed: bool = False) -> str:
    """The right-hand side of instruction ``op``; ``lib`` ``"np"`` (the NumPy flavour) or
    ``"math"`` (the compiled ones, sines and cosines from :mod:`robodyn.codegen.trig`,
    ``packed``: its branch-free forms, which the blocked kernels fix up after the loop)."""
    def arg(a):
        return _operand(a, name)

    kind = op[0]
    if kind in _TRIG and lib == "math":  # arithmetic, not a call (robodyn.codegen.trig)
        return f"trig.{kind}{'_packed' if packed else ''}({arg(op[1])})"
    if kind in _TRIG:  # the same arithmetic on columns (robodyn.codegen.trig_numpy)
        return f"trig_np.{kind}({arg(op[1])})"
    if kind in _BINARY:
        return f"{arg(op[1])} {_BINARY[kind]} {arg(op[2])}"
    if kind == "neg":
        return f"-{arg(op[1])}"
    if kind == "sign":
        return f"np.sign({arg(op[1])})"
    if kind == "pow":  # x**c, c a constant; NaN for x < 0 and fractional c in both flavours
        return f"{'np.power' if lib == 'np' else 'math.pow'}({arg(op[1])}, {arg(op[2])})"
    return f"{lib}.{kind}({arg(op[1])})"


def _trig_pairs(tape: Tape, live: list[bool]) -> tuple[dict[int, tuple[int, int]], set[int]]:
    """``({first: (sine, cosine)}, seconds)``: the live sine and cosine of one argument,
    emitted as one ``sincos`` at the first of the two (one reduction, one call or one
    inlined body), and the second of each pair, not emitted on its own."""
    seen: dict[tuple, dict[str, int]] = {}
    for i, op in enumerate(tape.ops):
        if live[i] and op[0] in _TRIG:
            seen.setdefault(op[1], {})[op[0]] = i
    pairs = {min(d["sin"], d["cos"]): (d["sin"], d["cos"]) for d in seen.values()
             if len(d) == 2}
    return pairs, {max(both) for both in pairs.values()}


def _slot_key(out) -> tuple:
    return ("v", out.i) if isinstance(out, Var) else ("c", repr(float(out)))


def _output_slots(outputs: Sequence) -> tuple[list[int], dict, int]:
    """The distinct values among ``outputs``, for a kernel of more than
    :data:`GATHER_MIN_OUTPUTS` outputs: ``(slot of each output, {key: slot}, number of
    computed values)``, the computed values first (in order of first appearance), then
    the constants (key ``("c", repr)``)."""
    slots: dict = {}
    for out in outputs:
        if isinstance(out, Var):
            slots.setdefault(_slot_key(out), len(slots))
    results = len(slots)
    for out in outputs:
        slots.setdefault(_slot_key(out), len(slots))
    return [slots[_slot_key(out)] for out in outputs], slots, results


def numba_source(
    tape: Tape, groups: Sequence[tuple[str, int]], outputs: Sequence, params: int = 0,
    fname: str = "kernel",
) -> str:
    """Source of a Numba kernel ``fname(A0, A1, ..., P, OUT, start, stop) -> int``.

    ``groups`` lists the per-sample input arrays as ``(prefix, width)``: input ``q3``
    is column 3 of the array of prefix ``q``. ``P`` holds the model's ``params``
    parameter values (inputs ``p0, p1, ...``), the same for every sample.

    A kernel of more than :data:`GATHER_MIN_OUTPUTS` outputs (a humanoid's ``M``, a
    regressor, derivatives) stores each distinct value once in a scratch row ``S`` (the
    constants, such as the zeros of a sparse ``M``, once per call) and a loop copies
    ``S[IDX[j]]`` to ``OUT[k, j]``: the same values, bit for bit, in a compile time
    linear in the program, where Numba and LLVM take time quadratic in the stores of one
    function (measured: 1000 stores 100 s, 2000 stores 340 s; the 2500 of TALOS's ``M``
    680 s).
    """
    live = live_ops(tape, outputs)
    arrays = {prefix: f"A{k}" for k, (prefix, _) in enumerate(groups)}
    gather = len(outputs) > GATHER_MIN_OUTPUTS
    lines = [*_HEADER, "", ""]
    if gather:
        index, slots, results = _output_slots(outputs)
        # a global array is a constant of the compiled function (a literal list in its
        # body would be built element by element)
        lines += [f"IDX_{fname} = np.array([{', '.join(map(str, index))}], dtype=np.int64)",
                  "", ""]
    lines += [
        '@njit(nogil=True, cache=True, error_model="numpy")',
        f"def {fname}({', '.join([*arrays.values(), 'P', 'OUT', 'start', 'stop'])}):",
        "    bad = -1",
    ]
    lines += [f"    p{j} = P[{j}]" for j in range(params)]
    if gather:
        lines += [f"    S = np.empty({len(slots)})", f"    IDX = IDX_{fname}"]
        lines += [f"    S[{n}] = {_const(float(key[1]))}" for key, n in slots.items()
                  if key[0] == "c"]
        stored = {key[1]: n for key, n in slots.items() if key[0] == "v"}
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

    pairs, partners = _trig_pairs(tape, live)
    for i, op in enumerate(tape.ops):
        if i in pairs:
            sine, cosine = pairs[i]
            lines.append(f"        t{sine}, t{cosine} = trig.sincos({_operand(op[1], name)})")
        elif live[i] and op[0] != "in" and i not in partners:
            lines.append(f"        t{i} = {_expression(op, name, 'math')}")
        if gather:  # as soon as it is known: no value kept alive to the end
            for j in pairs.get(i, (i,)):
                if j in stored:
                    lines.append(f"        S[{stored[j]}] = {name(j)}")
    # then a non-finite result of finite inputs (an overflow, a singular matrix) is flagged
    if gather:
        lines += [f"        for j in range({len(outputs)}):",
                  "            OUT[k, j] = S[IDX[j]]"]
        if results:
            lines += ["        chk = 0.0",
                      f"        for j in range({results}):",
                      "            chk += S[j]"]
    else:
        results = []
        for j, out in enumerate(outputs):
            value = name(out.i) if isinstance(out, Var) else _const(out)
            lines.append(f"        OUT[k, {j}] = {value}")
            if isinstance(out, Var):
                results.append(value)
        if results:
            lines.append(f"        chk = {' + '.join(results)}")
    if results:
        lines.append("        if chk - chk != 0.0 and bad < 0:")
        lines.append("            bad = k")
    lines.append("    return bad")
    return "\n".join(lines) + "\n"


def _schedule(tape: Tape, live: list[bool]) -> list[tuple[str, list[int]]]:
    """The loops of a blocked kernel: ``[(kind, instructions)]`` in order, ``kind`` ``'v'``
    (packed arithmetic) or ``'s'`` (library calls).

    An instruction's phase is the number of calls on its longest path from the inputs;
    the loops run phase by phase: the packed instructions of phase 0, the calls of phase
    1 (whose arguments are all known by then), the packed instructions of phase 1, ...
    (Splitting the packed loops further was measured: no faster, slower to compile.)
    """
    ops = tape.ops
    phase = [0] * len(ops)
    for i, op in enumerate(ops):
        if live[i] and op[0] != "in":
            phase[i] = max((phase[a[1]] for a in op[1:] if isinstance(a, tuple)
                            and a[0] == "v"), default=0) + (op[0] not in _PACKED)
    loops: list[tuple[str, list[int]]] = []
    last = max((phase[i] for i in range(len(ops)) if live[i]), default=0)
    # each phase's calls and packed operations in tape order, in one pass over the tape
    # (not one pass per phase, each a pass over the whole tape)
    by_phase: list[tuple[list[int], list[int]]] = [([], []) for _ in range(last + 1)]
    for i, op in enumerate(ops):
        if live[i] and op[0] != "in":
            by_phase[phase[i]][op[0] in _PACKED].append(i)
    for calls, packed in by_phase:
        if calls:
            loops.append(("s", calls))
        if packed:
            loops.append(("v", packed))
    if not loops or loops[-1][0] != "v":
        loops.append(("v", []))  # the outputs and the finite check are written in a 'v' loop
    return loops


def numba_block_source(
    tape: Tape, groups: Sequence[tuple[str, int]], outputs: Sequence, params: int = 0,
    fname: str = "kernel_block", block: int = BLOCK, header: bool = True,
) -> str:
    """Source of a blocked Numba kernel ``fname(A0, ..., P, OUT, start, stop) -> int``, the
    same computation as :func:`numba_source`'s kernel (the same operations in the same
    order on each sample, so the same bits), laid out for SIMD across samples.

    Rows ``start:stop`` go in blocks of ``block`` samples through one scratch array ``X``
    of ``(rows, block)``: a block's inputs are transposed into it (structure of arrays),
    then each loop ``for k in range(block)`` of :func:`_schedule` runs its straight-line
    statements on sample ``k``; LLVM vectorises those loops across ``k`` (4 samples per
    AVX2 instruction), their trip count being the constant ``block`` and every access
    ``X[row, k]`` at a constant row. Values that one loop makes and a later one uses go
    through a row of ``X``; so do the outputs and a flag per sample, 0.0 when its inputs
    and results are finite (``(s - s)`` is 0.0 for a finite sum ``s``, NaN otherwise), the
    check :func:`numba_source` makes. After the block the outputs are copied to ``OUT``
    and the first flagged sample is remembered: the kernel returns the first row whose
    inputs or results are not finite, or -1. A last, partial block computes all
    ``block`` lanes (the spare ones on stale, finite numbers) and keeps its ``nb``.
    ``header``: whether to start with the imports (off to append it to a
    :func:`numba_source` module).
    """
    live = live_ops(tape, outputs)
    ops = tape.ops
    loops = _schedule(tape, live)
    where = {i: n for n, (_, body) in enumerate(loops) for i in body}
    inputs = [f"{prefix}{c}" for prefix, width in groups for c in range(width)]
    row: dict[int, int] = {}
    for name in inputs:  # every input has a row: the finite check reads them all
        row[tape.inputs[name].i] = len(row)
    final = len(loops) - 1
    for i, op in enumerate(ops):
        if live[i] and op[0] != "in":
            for a in op[1:]:
                if isinstance(a, tuple) and a[0] == "v" and ops[a[1]][0] != "in" \
                        and where[a[1]] != where[i]:
                    row.setdefault(a[1], len(row))
    for out in outputs:
        if isinstance(out, Var) and ops[out.i][0] != "in" and where[out.i] != final:
            row.setdefault(out.i, len(row))
    first_out = len(row)
    # the output rows of X: one per output, or (many outputs, as in numba_source) one
    # per distinct value, the constants' rows filled once, and a copy through a table
    gather = len(outputs) > GATHER_MIN_OUTPUTS
    if gather:
        index, slots, _ = _output_slots(outputs)
        out_rows = [first_out + n for n in index]
        flag = first_out + len(slots)
    else:
        out_rows = [first_out + j for j in range(len(outputs))]
        flag = first_out + len(outputs)
    arrays = {prefix: f"A{k}" for k, (prefix, _) in enumerate(groups)}

    def name(i):
        op = ops[i]
        return op[1] if op[0] == "in" else f"t{i}"

    lines = list(_HEADER) if header else []
    if gather:
        lines += ["", "", f"ROWS_{fname} = np.array([{', '.join(map(str, out_rows))}], "
                  "dtype=np.int64)"]
    lines += [
        "",
        "",
        '@njit(nogil=True, cache=True, error_model="numpy")',
        f"def {fname}({', '.join([*arrays.values(), 'P', 'OUT', 'start', 'stop'])}):",
        "    bad = -1",
    ]
    lines += [f"    p{j} = P[{j}]" for j in range(params)]
    lines.append(f"    X = np.zeros(({flag + 1}, {block}))")
    if gather:
        lines.append(f"    ROWS = ROWS_{fname}")
        lines += [f"    X[{first_out + n}, :] = {_const(float(key[1]))}"
                  for key, n in slots.items() if key[0] == "c" and float(key[1]) != 0.0]
    lines += [f"    for b0 in range(start, stop, {block}):",
              f"        nb = min({block}, stop - b0)",
              "        for k in range(nb):"]
    for prefix, width in groups:
        for c in range(width):
            lines.append(f"            X[{row[tape.inputs[f'{prefix}{c}'].i]}, k] = "
                         f"{arrays[prefix]}[b0 + k, {c}]")
    fixups: list[int] = []
    pairs, partners = _trig_pairs(tape, live)
    for n, (_kind, body) in enumerate(loops):
        text: list[str] = []
        known: set[int] = set()

        def use(i, n=n, text=text, known=known):
            if i not in known and (ops[i][0] != "in" or not ops[i][1].startswith("p")) \
                    and (ops[i][0] == "in" or where[i] != n):
                known.add(i)
                text.append(f"            {name(i)} = X[{row[i]}, k]")

        for i in body:
            if i in partners:
                continue
            for a in ops[i][1:]:
                if isinstance(a, tuple) and a[0] == "v":
                    use(a[1])
            if i in pairs:
                text.append("            t{}, t{} = trig.sincos_packed({})".format(
                    *pairs[i], _operand(ops[i][1], name)))
            else:
                text.append(f"            t{i} = {_expression(ops[i], name, 'math', packed=True)}")
            for j in pairs.get(i, (i,)):
                if j in row:
                    text.append(f"            X[{row[j]}, k] = t{j}")
                if ops[j][0] in _TRIG:  # the arguments the packed form does not take: after it
                    fixups.append(j)
        if n == final:
            results = []
            written: set[int] = set()
            for j, out in enumerate(outputs):
                if gather and (not isinstance(out, Var) or out_rows[j] in written):
                    continue  # a constant's row is filled; a repeated value's written
                written.add(out_rows[j])
                if isinstance(out, Var):
                    use(out.i)
                    results.append(name(out.i))
                value = name(out.i) if isinstance(out, Var) else _const(out)
                text.append(f"            X[{out_rows[j]}, k] = {value}")
            for v in inputs:
                use(tape.inputs[v].i)
            # a non-finite input, or a non-finite result of finite inputs (an overflow, a
            # singular matrix): the sums are finite exactly when numba_source's are
            text.append(f"            ci = {' + '.join(inputs) or '0.0'}")
            text.append(f"            co = {' + '.join(results) or '0.0'}")
            text.append(f"            X[{flag}, k] = (ci - ci) + (co - co)")
        if text:
            lines.append(f"        for k in range({block}):")
            lines += text
        if fixups:  # a call's result is used from the next loop on: fixed up here, one
            # test of the sum for the block's usual case, every argument within the limit
            args: dict[str, list[int]] = {}
            loads = []
            for i in fixups:
                a = ops[i][1]
                arg = _operand(a, name)
                if arg not in args and a[0] == "v" and not (
                        ops[a[1]][0] == "in" and ops[a[1]][1].startswith("p")):
                    loads.append(f"            {arg} = X[{row[a[1]]}, k]")
                args.setdefault(arg, []).append(i)
            limit = repr(TRIG_LIMIT)
            lines += [f"        for k in range({block}):", *loads,
                      f"            if not {' + '.join(f'abs({a})' for a in args)} < {limit}:"]
            for arg, calls in args.items():
                lines.append(f"                if not abs({arg}) < {limit}:")
                lines += [f"                    X[{row[i]}, k] = math.{ops[i][0]}({arg})"
                          for i in calls]
            fixups.clear()
    if gather:
        # output by output, each a row of X read along the block (measured on TALOS's M,
        # 2500 outputs: 0.75 us per state, against 1.36 sample by sample, which reads a
        # cache line of X for every output)
        lines += [f"        if nb == {block}:",
                  f"            for j in range({len(outputs)}):",
                  "                r = ROWS[j]",
                  f"                for k in range({block}):",
                  "                    OUT[b0 + k, j] = X[r, k]",
                  "        else:",
                  "            for k in range(nb):",
                  f"                for j in range({len(outputs)}):",
                  "                    OUT[b0 + k, j] = X[ROWS[j], k]"]
    else:
        lines.append("        for k in range(nb):")
        lines += [f"            OUT[b0 + k, {j}] = X[{first_out + j}, k]"
                  for j in range(len(outputs))]
    lines += ["        if bad < 0:",
              "            for k in range(nb):",
              f"                if X[{flag}, k] != 0.0:",
              "                    bad = b0 + k",
              "                    break",
              "    return bad"]
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
        f"from robodyn.codegen import trig_numpy as trig_np  # trig {TRIG_DIGEST}",
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
