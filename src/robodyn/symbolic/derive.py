"""Deriving the equations of motion: :func:`equations` of a robot (or a symbolic chain),
by Lagrange–Euler (one of three routes, :mod:`.routes`) or by Newton–Euler, and
:func:`derive` of a chain."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sympy as sp

from ..core.errors import ExpansionError, InputError, excerpt
from ..core.progress import ProgressOption, check_progress, tracker
from ..dynamics.friction import multi_value_extras
from ..model.chain import Chain
from ..model.expansion import describe_terms, largest_expression
from ..model.source import ModelSource
from .derivation import Derivation, make_ring, tidy_chain
from .equations import Equations, value_table
from .estimate import check_derivable
from .hamel import boltzmann_hamel
from .lagrange import lagrange_euler
from .lugre import bristle_symbols
from .newton_euler import newton_euler
from .ring.coordinates import joint_coordinates
from .routes import energy_route, jacobian_route, route_of

#: Accepted spellings of the two methods.
METHODS = {
    "lagrange": "lagrange", "lagrange-euler": "lagrange", "lagrange_euler": "lagrange",
    "le": "lagrange", "euler-lagrange": "lagrange",
    "newton-euler": "newton-euler", "newton_euler": "newton-euler", "ne": "newton-euler",
    "rnea": "newton-euler",
}


def _method(method: str) -> str:
    key = str(method).strip().lower()
    if key not in METHODS:
        raise InputError(f"method: {method!r} is not a method; use 'lagrange' (Lagrange-Euler) "
                         "or 'newton-euler'")
    return METHODS[key]


def model_of(model) -> ModelSource | Chain:
    """A model description of what the symbolic functions take: a
    :class:`~robodyn.model.source.ModelSource`, a chain, or an object that has one as its
    ``model`` (a :class:`~robodyn.robot.Robot`)."""
    if isinstance(model, (ModelSource, Chain)):
        return model
    described = getattr(model, "model", None)
    if isinstance(described, ModelSource):
        return described
    raise InputError(f"expected a robot, its model or a chain, got {type(model).__name__}")


def chain_of(model, values) -> tuple[Chain, str, dict]:
    """The (possibly substituted) symbolic chain, a name, and the remaining defaults."""
    model = model_of(model)
    if isinstance(model, Chain):
        chain, name, defaults = model, "chain", {}
    else:
        chain, name, defaults = model.chain, model.name, model.values
    check_derivable(chain, name)  # before tidy_chain and subs, which expand already
    if values is None or values is False:
        return tidy_chain(chain), name, defaults
    if values is True or values == "defaults":
        values = defaults
    symbols = tuple(sorted(chain.free_symbols(), key=str))
    table = value_table(values, symbols, name)
    rest = {k: v for k, v in defaults.items() if sp.Symbol(k) not in table}
    return tidy_chain(chain.subs(table)), name, rest


def derive(chain: Chain, method: str = "lagrange", *, h_e: bool = False, name: str = "robot",
           defaults: Mapping[str, float] | None = None, ring=None,
           route: str | None = None) -> Equations:
    """Derive the equations of ``chain`` (a symbolic :class:`~robodyn.model.chain.Chain`);
    ``route``: see :func:`equations`."""
    return Equations(_derivation(chain, method, h_e, name, ring, route), name=name,
                     defaults=defaults)


def _derivation(chain: Chain, method: str, h_e: bool, name: str, ring,
                route: str | None, standard_dh: tuple = ()) -> Derivation:
    """The polynomials of ``chain``'s equations by ``method`` (and ``route``), in ``ring``
    (by default the chain's own); ``standard_dh``: the rows of a standard DH table, whose
    frames the steps are then written in (:mod:`.dh_frames`)."""
    method = _method(method)
    route = route_of(route, method)
    check_derivable(chain, name)  # before tidy_chain: that already expands
    extras = multi_value_extras(chain)
    if extras:
        raise InputError(f"{name}: armature, damping or dry friction on ball or free "
                         f"joint(s) {', '.join(extras[:5])} is in the numeric methods "
                         "(robot.mass_matrix, robot.inverse_dynamics, ...) but not in the "
                         "closed forms yet; derive a model without it")
    bristle_symbols(chain, name)  # LuGre: refused where its states cannot be named
    chain = tidy_chain(chain)
    ring = ring or make_ring(chain, wrench=h_e)
    if method == "newton-euler":
        algorithm = newton_euler
    elif route == "euler-lagrange" and not chain.single_valued:
        algorithm = boltzmann_hamel  # quasi-velocities: Lagrange's equations in Hamel's form
    else:
        algorithm = {"euler-lagrange": lagrange_euler, "energy": energy_route,
                     "jacobian": jacobian_route}[route]
    try:
        if standard_dh:
            return algorithm(chain, ring, standard_dh=standard_dh)
        return algorithm(chain, ring)
    except ExpansionError as exc:
        raise ExpansionError(f"{name}: {exc}{_largest(chain)}; give numbers for some "
                             "parameters (values=..., robodyn derive --values) or write the "
                             "model's expressions with fewer terms") from None


def _largest(chain: Chain) -> str:
    """``" (the largest expression: links[0]... with N terms)"`` for an error message."""
    path, expr, terms = largest_expression(chain)
    if expr is None or terms <= 1:
        return ""
    return (f" (the largest expression: {path} = {excerpt(str(expr), 60)}, "
            f"{describe_terms(expr)} terms)")


def equations(model, method: str = "lagrange", *, values: Any = None,
              h_e: bool = False, route: str | None = None,
              progress: ProgressOption = None) -> Equations:
    """The equations of motion of ``model`` (a robot, ``robot.model`` or a chain) in closed
    form.

    ``method``: ``"lagrange"`` (Lagrange–Euler: energies, ``d/dt dL/dqd - dL/dq``) or
    ``"newton-euler"`` (the outward/inward recursion). ``route`` (Lagrange only; the
    steps show the way taken, the equations are identical, :mod:`.routes`):

    * ``"euler-lagrange"`` (the default): ``tau_i = d/dt dL/dqd_i - dL/dq_i``, ``M`` the
      coefficients of ``qdd`` in ``tau``;
    * ``"energy"``: ``M_ij = d^2 K / dqd_i dqd_j`` (the Hessian of ``K = 1/2 qd^T M qd``,
      as lecture notes on planar arms read it), ``g = dU/dq``;
    * ``"jacobian"``: ``M = sum_i m_i J_P^(i)T J_P^(i) + J_O^(i)T R_i I_i R_i^T J_O^(i)``
      and ``g_i = -sum_j m_j g0^T J_P,i^(j)`` from the Jacobians of the centres of mass
      (Siciliano et al., Robotics, §7.2 and §7.4).

    In every route ``C`` comes from the Christoffel symbols of ``M``. A free (floating-base)
    or ball joint has the coordinates of :mod:`.ring.coordinates`: its position and unit
    quaternion in ``q`` and its body twist as velocities, so that ``M``, ``C``, ``g``,
    ``tau`` are the numeric ``nv``-sized ones; ``"lagrange"`` then takes the
    Boltzmann–Hamel form ``tau_k = d/dt dL/dv_k - X_k L - sum c^j_ik v_i dL/dv_j``
    (:mod:`.hamel`) and ``C`` the Christoffel symbols of that frame
    (:func:`.derivation.christoffel`). ``values``: ``None``
    keeps every parameter symbolic, ``True`` substitutes the model's default values, a mapping
    ``{name: number}`` substitutes those. ``h_e=True`` adds ``J(q)^T h_e`` for a wrench
    ``h_e = (f_ex, f_ey, f_ez, mu_ex, mu_ey, mu_ez)`` that the end effector exerts on
    the environment (base frame; Siciliano eq. 7.83). ``model``: a
    :class:`~robodyn.robot.Robot` (read through its ``model``), its
    :class:`~robodyn.model.source.ModelSource` or a symbolic chain. ``progress``: one unit, the
    derivation (:mod:`robodyn.core.progress`: by default a bar with the time spent on a
    terminal once it lasts, ``False`` for none, or a callable ``(done, total, label)``).
    """
    check_progress(progress)
    model = model_of(model)
    chain, name, defaults = chain_of(model, values)
    provenance = getattr(model, "provenance", None)  # a chain has none
    dh_rows = tuple(getattr(provenance, "dh_rows", ()) or ())
    if len(dh_rows) != chain.dof or not chain.single_valued or not _rows_fit(dh_rows, chain):
        dh_rows = ()  # a chain cut from a longer table, or made numeric: none to show
    convention = getattr(provenance, "convention", None)
    # Siciliano's DH-frame presentation has no point masses: such a chain is shown in the
    # core's link frames, where every step (and tau) includes them
    point_masses = any(getattr(link, "point_masses", ()) for link in chain.links)
    standard = dh_rows if dh_rows and convention != "modified" and not point_masses else ()
    with tracker(progress, 1, "deriving"):
        derivation = _derivation(chain, method, h_e, name, None, route, standard)
    eq = Equations(derivation, name=name, defaults=defaults, dh_rows=dh_rows,
                   convention=convention,
                   display=dict(getattr(provenance, "display", ()) or ()),
                   model_terms=_declared_terms(provenance, chain))
    zero = tuple(getattr(provenance, "potential_zero", ()) or ())
    if len(zero) == eq.dof:
        eq.potential_zero = zero
    return eq


def _rows_fit(dh_rows, chain: Chain) -> bool:
    """Whether the DH table's parameters are still symbols of ``chain`` (a robot made
    numeric, ``robot.with_chain(robot.numeric_chain)``, keeps its table of symbols)."""
    free = set(chain.free_symbols())
    used = set()
    for row in dh_rows:
        for x in (row.a, row.alpha, row.d, row.theta):
            used |= getattr(x, "free_symbols", set())  # SymPy expressions or numbers
    return used <= free


def _declared_terms(provenance, chain: Chain) -> dict:
    """The model file's ``terms:`` that still have meaning after ``values=`` (a term of
    parameters that are numbers now is dropped, not printed as a number)."""
    free = {str(s) for s in chain.free_symbols()} | {
        str(s) for jc in joint_coordinates([link.joint.type for link in chain.links])
        for s in jc.q}
    terms = dict(getattr(provenance, "terms", ()) or ())
    return {k: v for k, v in terms.items() if {str(s) for s in v.free_symbols} <= free}
