"""The registry of the functions: one entry per compiled algorithm, read by everything
that lists them.

Each :class:`KernelSpec` names the scalar algorithm, its per-sample inputs (in call
order), the shape of its result (from the chain's ``nv`` and its number of links), a
one-line docstring (the equation) and, for a function that can also take the
end-effector wrench, the name of its ``h_e`` variant: the same algorithm with ``h_e`` as one more
input (``inverse_dynamics_contact``). The tracer (:mod:`robodyn.codegen.trace`) records
``algorithm(chain, ops=tape, **inputs)`` into a compiled kernel, and
:class:`~robodyn.Robot` checks and batches the arrays it is given from the same entry.

A function with a closed form also carries its :class:`ClosedForm`: what the symbolic
equations (:class:`~robodyn.symbolic.equations.Equations`), the code exporters
(:mod:`robodyn.codegen.export`) and the printed forms
(:mod:`robodyn.symbolic.printing`) call it; :data:`CLOSED_FORMS` lists every
closed form of the equations, the two without a kernel of their own (``C qd``,
``J^T h_e``) included.

So a new numeric function is one module in :mod:`robodyn.dynamics` plus one entry here
(and a documented method of ``Robot`` that calls ``self._runner.run(name, ...)``); giving it a
closed form to export or print is one :class:`ClosedForm` more.

Inputs are named as the user passes them: ``q`` (``nq`` values), ``qd``, ``qdd``, ``tau``
(``nv`` values: one per joint of one value, three for a ball joint, six for a free joint,
:mod:`robodyn.model.joints`) and ``h_e`` (a wrench, 6 values). Every entry runs on every
joint type, a free-flying base (a free joint at the root) included.

A tree's named frames (:func:`~robodyn.dynamics.kinematics.frame_names`) have kernels of
their own, made on demand by :func:`lookup` from a kind ``"<entry>@<frames>"``: the pose,
Jacobian and Jacobian rate of frame number ``k`` (``"jacobian@3"``), and an ``h_e``
variant with one wrench per listed frame (``"inverse_dynamics_contact@2,5"``: ``h_e`` is
12 values, frame 2's wrench then frame 5's).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial

from ..core.errors import ModelError
from .crba import mass_matrix
from .forward_dynamics import forward_dynamics
from .friction import friction_torques
from .inverse_dynamics import TORQUE_PARTS, gravity_torques, inverse_dynamics, torque_parts
from .kinematics import forward_kinematics, frame_names, jacobian


class _Later:
    """An algorithm of :mod:`robodyn.dynamics` imported at its first call: ``import
    robodyn`` reads every entry of the registry, and a first inverse dynamics needs none of
    the derivatives, centroidal or regressor modules (issue 32: the first number at once)."""

    __slots__ = ("module", "name", "_function")

    def __init__(self, module: str, name: str):
        self.module, self.name, self._function = module, name, None

    def __call__(self, *args, **kwargs):
        if self._function is None:
            module = importlib.import_module(f"{__package__}.{self.module}")
            self._function = getattr(module, self.name)
        return self._function(*args, **kwargs)

    def __repr__(self):
        return f"<{self.module}.{self.name}>"


centroidal_matrix = _Later("centroidal", "centroidal_matrix")
centroidal_momentum = _Later("centroidal", "centroidal_momentum")
coriolis_matrix = _Later("coriolis", "coriolis_matrix")
forward_dynamics_derivatives = _Later("derivatives", "forward_dynamics_derivatives")
inverse_dynamics_derivatives = _Later("derivatives", "inverse_dynamics_derivatives")
jacobian_derivative = _Later("derivatives", "jacobian_derivative")
mass_matrix_derivatives = _Later("derivatives", "mass_matrix_derivatives")
kinetic_energy = _Later("energy", "kinetic_energy")
potential_energy = _Later("energy", "potential_energy")
regressor_full = _Later("regressor", "regressor_full")


def _regressor_width(chain) -> int:
    from .regressor import regressor_width

    return regressor_width(chain)


def _parameters_per_joint() -> int:
    from .regressor import PARAMETERS_PER_JOINT

    return PARAMETERS_PER_JOINT


@dataclass(frozen=True)
class Shown:
    """How the printed equations (text, pretty, LaTeX, Markdown) show a closed form.

    ``term``: the term of the equation of motion it gives, a name of
    :data:`TORQUE_PARTS` (``inertial`` for ``M``, ``total`` for ``tau``), which sets the
    order of the printed results; ``symbol``: the name of its entries in the text form
    (``M12 = ...``); ``label``: its heading there; ``title``: its heading in LaTeX and
    Markdown; ``tex``: its LaTeX symbol; ``symmetric``: the text form lists only the
    upper triangle; ``entrywise``: LaTeX and Markdown show it entry by entry
    (``tau_1 = ...``), not as one matrix.
    """

    term: str
    symbol: str
    label: str
    title: str
    tex: str
    symmetric: bool = False
    entrywise: bool = False


@dataclass(frozen=True)
class ClosedForm:
    """What the symbolic side and the exporters call a function's closed form.

    ``attribute``: the :class:`~robodyn.symbolic.equations.Equations` attribute that holds
    it (``eq.M``), or with ``computed`` the method that returns ``(matrix, symbols)`` on
    request (``eq.regressor()``, not held by every equations object); ``rank``: 0 a
    scalar, 1 a column (``n x 1``), 2 a matrix (how the JSON form nests its entries);
    ``key``: its key in the JSON form (empty: not in it); ``h_e``: the equations have it
    only when derived with the end-effector wrench; ``output``: the name of the exported
    function's result (empty: not exported); ``shown``: how the printed equations show it
    (``None``: they do not).
    """

    attribute: str
    rank: int
    key: str = ""
    h_e: bool = False
    output: str = ""
    shown: Shown | None = None
    computed: bool = False


@dataclass(frozen=True)
class KernelSpec:
    """A compiled algorithm: ``algorithm(chain, ops=..., **inputs)`` returns a scalar or
    nested lists of scalars, flattened row-major into ``shape(nv, links)``
    (:func:`output_shape`).

    ``name``: its key in :data:`KERNELS`; ``doc``: what it computes, in one line;
    ``contact``: the name of its ``h_e`` variant (``None``: it has none, or it is one);
    ``closed_form``: what its closed form is called (``None``: no closed form, or a
    variant, whose closed form is its base entry's).

    What the exporters (:mod:`robodyn.codegen.export`) call its result: ``output``, the
    name of the whole result (``tau``, ``M``; the argument a C function writes it into);
    ``parts``, for a result that stacks several along its first axis (the derivatives'
    triple, the torque parts), the name of each, as the :class:`~robodyn.Robot` method
    returns them one by one (JAX and CasADi functions return them so).
    """

    algorithm: Callable
    inputs: tuple[str, ...]
    shape: Callable[[int, int], tuple[int, ...]]
    name: str = ""
    doc: str = ""
    contact: str | None = None
    closed_form: ClosedForm | None = None
    wrenches: int = 1  # frames whose wrenches ``h_e`` holds (a per-frame variant: several)
    output: str = "out"
    parts: tuple[str, ...] = ()
    #: The shape from the chain itself, where more than ``(nv, links)`` decides it (the
    #: regressor's columns: :func:`~robodyn.dynamics.regressor.regressor_width`).
    chain_shape: Callable | None = None


def input_width(name: str, chain, wrenches: int = 1) -> int:
    """Values per sample of an input for ``chain``: a wrench has 6 (``wrenches`` wrenches:
    ``6 wrenches``), ``q`` the ``nq`` configuration values, the velocity-like ones
    (``qd``, ``qdd``, ``tau``) ``nv`` (a free joint: ``nq = 7``, ``nv = 6``), the motors
    behind springs (``theta``, ``thetad``) one per spring."""
    if name == "h_e":
        return 6 * wrenches
    if name in ("theta", "thetad"):  # one per spring (robodyn.dynamics.elastic_dynamics)
        tr = getattr(chain, "transmission", None)
        if tr is not None and tr.stiffness is not None:
            return len(tr.springs)
        return sum(link.motor.stiffness is not None for link in chain.links)
    return chain.nq if name == "q" else chain.nv


def output_shape(spec: KernelSpec, chain) -> tuple[int, ...]:
    """The shape of one sample of ``spec``'s result for ``chain``."""
    if spec.chain_shape is not None:
        return spec.chain_shape(chain)
    return spec.shape(chain.nv, chain.dof)


# shapes from (nv, the number of links)
def _vector(n, links):
    return (n,)


def _square(n, links):
    return (n, n)


def _scalar(n, links):
    return ()


def _parts(n, links):
    return (len(TORQUE_PARTS), n)


def _derivatives(n, links):  # d/dq, d/dqd, then the third input's
    return (3, n, n)


# -- the closed forms (in the order of the JSON form) ---------------------------------------
INERTIA = ClosedForm("M", 2, key="M", output="M", shown=Shown(
    "inertial", "M", "M, inertia matrix (symmetric, M_ji = M_ij):", "Inertia matrix", "M",
    symmetric=True))
CORIOLIS = ClosedForm("C", 2, key="C", output="C", shown=Shown(
    "coriolis", "C",
    "C, Coriolis and centrifugal matrix (Christoffel symbols of the first kind):",
    "Coriolis and centrifugal matrix (Christoffel symbols of the first kind)", "C"))
GRAVITY = ClosedForm("g", 1, key="g", output="g", shown=Shown(
    "gravity", "g", "g, gravity torques:", "Gravity torques", "g"))
FRICTION = ClosedForm("friction", 1, key="friction", output="tau_f", shown=Shown(
    "friction", "friction", "friction:", "Friction", r"\tau_f"))
CORIOLIS_TORQUES = ClosedForm("Cqd", 1, key="Cqd")
TORQUES = ClosedForm("tau", 1, key="tau", output="tau", shown=Shown(
    "total", "tau", "Equations of motion:", "Equations of motion", r"\tau", entrywise=True))
KINETIC_ENERGY = ClosedForm("kinetic_energy", 0, key="kinetic_energy")
POTENTIAL_ENERGY = ClosedForm("potential_energy", 0, key="potential_energy")
WRENCH_TORQUES = ClosedForm("wrench_torques", 1, key="J^T h_e", h_e=True, shown=Shown(
    "external", "(J^T h_e)", "J^T h_e, torques balancing the end-effector wrench:",
    "End-effector wrench", "J^T h_e"))
REGRESSOR = ClosedForm("regressor", 2, output="Y", computed=True)

#: Every closed form an :class:`~robodyn.symbolic.equations.Equations` holds, in the
#: order of its JSON form (those with ``h_e`` last); the regressor, computed on request,
#: is not among them.
CLOSED_FORMS = (INERTIA, CORIOLIS, GRAVITY, FRICTION, CORIOLIS_TORQUES, TORQUES,
                KINETIC_ENERGY, POTENTIAL_ENERGY, WRENCH_TORQUES)


def _registry(*specs: KernelSpec) -> dict[str, KernelSpec]:
    """``{name: spec}`` of ``specs``, each followed by its ``h_e`` variant if it has one."""
    out = {}
    for spec in specs:
        out[spec.name] = spec
        if spec.contact:
            out[spec.contact] = replace(spec, name=spec.contact, inputs=(*spec.inputs, "h_e"),
                                        doc=f"{spec.doc}, with the end-effector wrench h_e",
                                        contact=None, closed_form=None)
    return out


def _entry(name, algorithm, inputs, shape, doc, contact=False, closed_form=None, output=None,
           parts=(), chain_shape=None):
    """An entry of :data:`KERNELS`; its result is named ``output``, else as its closed form's."""
    if output is None:
        output = (closed_form.output if closed_form is not None else "") or "out"
    return KernelSpec(algorithm, inputs, shape, name, doc,
                      f"{name}_contact" if contact else None, closed_form,
                      output=output, parts=tuple(parts), chain_shape=chain_shape)


#: Every compiled function, by name (the exporters write them in this order).
KERNELS: dict[str, KernelSpec] = _registry(
    _entry("inverse_dynamics", inverse_dynamics, ("q", "qd", "qdd"), _vector,
           "joint torques tau = M(q) qdd + C(q, qd) qd + friction(qd) + g(q)",
           contact=True, closed_form=TORQUES),
    _entry("forward_dynamics", forward_dynamics, ("q", "qd", "tau"), _vector,
           "joint accelerations qdd = M(q)^-1 (tau - C(q, qd) qd - friction(qd) - g(q))",
           contact=True, output="qdd"),
    _entry("mass_matrix", mass_matrix, ("q",), _square, "joint-space inertia matrix M(q)",
           closed_form=INERTIA),
    _entry("coriolis_matrix", coriolis_matrix, ("q", "qd"), _square,
           "Coriolis/centrifugal matrix C(q, qd) (Christoffel symbols)",
           closed_form=CORIOLIS),
    _entry("gravity_torques", gravity_torques, ("q",), _vector, "gravity torques g(q)",
           closed_form=GRAVITY),
    _entry("friction_torques", friction_torques, ("qd",), _vector,
           "friction torques F_v qd + F_s sign(qd)", closed_form=FRICTION),
    _entry("forward_kinematics", forward_kinematics, ("q",), lambda n, links: (3, 4),
           "end-effector pose [R(q) | p(q)], the top rows of T_0e", output="T_0e"),
    _entry("jacobian", jacobian, ("q",), lambda n, links: (6, n),
           "geometric Jacobian J(q), (v_e, w_e) = J(q) qd", output="J"),
    _entry("torque_parts", torque_parts, ("q", "qd", "qdd"), _parts,
           "the terms of tau: M qdd, C qd, g, friction, J^T h_e, and their sum", contact=True,
           output="parts", parts=TORQUE_PARTS),
    _entry("kinetic_energy", kinetic_energy, ("q", "qd"), _scalar,
           "kinetic energy T(q, qd) = 1/2 qd^T M(q) qd", closed_form=KINETIC_ENERGY,
           output="T"),
    _entry("potential_energy", potential_energy, ("q",), _scalar,
           "potential energy U(q) = -sum_i m_i g0^T p_ci", closed_form=POTENTIAL_ENERGY,
           output="U"),
    _entry("regressor", regressor_full, ("q", "qd", "qdd"),
           lambda n, links: (n, _parameters_per_joint() * links),
           "regressor Y(q, qd, qdd), tau = Y pi",
           closed_form=REGRESSOR, chain_shape=lambda chain: (chain.nv, _regressor_width(chain))),
    # derivatives (forward-mode over the traced program, dynamics/derivatives.py)
    _entry("inverse_dynamics_derivatives", inverse_dynamics_derivatives, ("q", "qd", "qdd"),
           _derivatives, "dtau/dq, dtau/dqd, dtau/dqdd = M(q)", contact=True,
           output="dtau", parts=("dtau_dq", "dtau_dqd", "dtau_dqdd")),
    _entry("forward_dynamics_derivatives", forward_dynamics_derivatives, ("q", "qd", "tau"),
           _derivatives, "dqdd/dq, dqdd/dqd, dqdd/dtau = M(q)^-1", contact=True,
           output="dqdd", parts=("dqdd_dq", "dqdd_dqd", "dqdd_dtau")),
    _entry("mass_matrix_derivatives", mass_matrix_derivatives, ("q",),
           lambda n, links: (n, n, n), "dM/dq, [i][j][k] = dM_ij/dq_k", output="dM_dq"),
    _entry("jacobian_derivative", jacobian_derivative, ("q", "qd"), lambda n, links: (6, n),
           "dJ/dt = sum_k dJ/dq_k qd_k", output="Jdot"),
    _entry("centroidal_momentum", centroidal_momentum, ("q", "qd"), lambda n, links: (6,),
           "centroidal momentum h_G = A_G(q) v (world axes, about the centre of mass)",
           output="h_G"),
    _entry("centroidal_matrix", centroidal_matrix, ("q",), lambda n, links: (6, n),
           "centroidal momentum matrix A_G(q)", output="A_G"),
)


#: The entries with a variant per named frame (``frame=k``): pose, Jacobian, its rate.
FRAME_KERNELS = ("forward_kinematics", "jacobian", "jacobian_derivative")


def lookup(kind: str, chain=None, kernels: dict | None = None) -> KernelSpec:
    """The spec of ``kind``: an entry of :data:`KERNELS` (or of ``kernels``), or a per-frame
    variant
    ``"<entry>@k"`` (``entry`` in :data:`FRAME_KERNELS`, ``k`` a frame number) or
    ``"<entry>_contact@k1,k2,..."`` (``h_e`` one wrench per frame ``k1, k2, ...``, in that
    order, each listed once). ``KeyError`` for anything else, and (given ``chain``) for a
    frame number that is not one of ``chain``'s frames."""
    kernels = KERNELS if kernels is None else kernels
    spec = kernels.get(kind)
    if spec is not None:
        return spec
    base, at, arg = str(kind).partition("@")
    spec = kernels.get(base)
    if not at or spec is None or not arg:
        raise KeyError(kind)
    try:
        frames = tuple(int(x) for x in arg.split(","))
    except ValueError:
        raise KeyError(kind) from None
    if any(k < 0 or str(k) != x for k, x in zip(frames, arg.split(","))):
        raise KeyError(kind)
    if chain is not None and max(frames) >= len(frame_names(chain)):
        raise KeyError(kind)
    if base in FRAME_KERNELS and len(frames) == 1:
        return replace(spec, name=kind, algorithm=partial(spec.algorithm, frame=frames[0]),
                       doc=f"{spec.doc}, at frame {frames[0]}", closed_form=None)
    if spec.inputs[-1:] == ("h_e",) and spec.contact is None and len(set(frames)) == len(frames):
        return replace(spec, name=kind, algorithm=partial(spec.algorithm, frames=frames),
                       doc=f"{spec.doc} per frame {arg}", wrenches=len(frames))
    raise KeyError(kind)


def printed_forms(h_e: bool) -> tuple[ClosedForm, ...]:
    """The closed forms the printed equations show for equations derived with the wrench
    (``h_e``) or without, in the order of the terms of the equation of motion
    (:data:`TORQUE_PARTS`): ``M, C, g, friction, [J^T h_e], tau``."""
    shown = [f for f in CLOSED_FORMS if f.shown is not None and (h_e or not f.h_e)]
    return tuple(sorted(shown, key=lambda f: TORQUE_PARTS.index(f.shown.term)))


def kernel_spec(kind: str, chain=None) -> KernelSpec:
    """The registry entry ``kind`` (:data:`KERNELS` and the per-frame variants of
    :func:`lookup`); anything else is a :class:`~robodyn.core.errors.ModelError` listing
    the entries."""
    try:
        return lookup(kind, chain)
    except KeyError:
        raise ModelError(f"kind: {str(kind)[:80]!r} is not an entry of the kernel registry; "
                         f"the entries are {', '.join(KERNELS)}") from None


__all__ = ["KERNELS", "FRAME_KERNELS", "lookup", "kernel_spec", "KernelSpec", "ClosedForm",
           "Shown", "CLOSED_FORMS", "TORQUE_PARTS", "input_width", "output_shape",
           "printed_forms"]
