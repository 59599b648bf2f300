"""What an exercise sheet asks (:mod:`robodyn.teaching.exercise`): the routes by which the
questions have ``M`` found (:data:`ROUTES`) and the quantities asked (:data:`QUANTITIES`),
read from the options by :func:`route_key` and :func:`questions_of`."""

from __future__ import annotations

from ..core.errors import InputError

__all__ = ["ROUTES", "ROUTE_NAMES", "QUANTITIES", "DEFAULT_QUESTIONS", "route_key",
           "questions_of"]

#: How the questions ask for ``M`` (``--route``): name -> what the student does.
ROUTES = {
    "energy": "M read off the kinetic energy, K = 1/2 qd^T M qd (course notes on planar arms)",
    "lagrange": "the Euler-Lagrange equations, M the coefficients of qdd (Siciliano et al., §7.1)",
    "jacobian": "M and g from the Jacobians of the centres of mass (Siciliano et al., §7.4)",
    "newton-euler": "the Newton-Euler recursion, M and g read off tau (Advanced Robotics, "
                    "Lecture 15)",
}
#: The Lagrange route of :func:`robodyn.symbolic.equations` behind each route.
ROUTE_NAMES = {"energy": "energy", "lagrange": "euler-lagrange", "jacobian": "jacobian",
               "newton-euler": None}
#: The quantities a sheet can ask for (``--questions``), in the order they are asked.
QUANTITIES = ("M", "C", "g", "tau", "regressor", "B_A", "tau_s")
#: The slow-down of the ``tau_s`` question: the path run ``SCALE`` times slower, ``q_s(t) =
#: q(t / SCALE)``, needs ``tau_s = (tau - g) / SCALE^2 + g`` (Siciliano et al. §7.6,
#: dynamic scaling; ``rd.scale_trajectory``'s uniform scaling), friction left out.
SCALE = 2
DEFAULT_QUESTIONS = ("M", "C", "g", "tau")


def route_key(route) -> str:
    """The key of :data:`ROUTES` that ``route`` names (``"euler-lagrange"``, ``"ne"``, ...
    are accepted as other names), else an :class:`InputError` naming ``route``."""
    key = str(route).strip().lower().replace("_", "-")
    key = {"euler-lagrange": "lagrange", "ne": "newton-euler", "le": "lagrange",
           "jacobians": "jacobian"}.get(key, key)
    if key not in ROUTES:
        raise InputError(f"route: {str(route)[:40]!r} is not a route; use one of "
                         f"{', '.join(ROUTES)}")
    return key


def questions_of(questions=None) -> tuple[str, ...]:
    """The quantities asked, in the order of :data:`QUANTITIES`: from a list or a text
    ``"M,C,g"`` (default :data:`DEFAULT_QUESTIONS`)."""
    if questions is None:
        return DEFAULT_QUESTIONS
    items = questions.split(",") if isinstance(questions, str) else list(questions)
    names = [str(x).strip() for x in items if str(x).strip()]
    lower = {q.lower(): q for q in QUANTITIES}
    if not names:
        raise InputError(f"questions: give one or more of {', '.join(QUANTITIES)}")
    for name in names:
        if name.lower() not in lower:
            raise InputError(f"questions: {name[:40]!r} is not a quantity; use some of "
                             f"{', '.join(QUANTITIES)} (e.g. M,C,g)")
    chosen = {lower[n.lower()] for n in names}
    return tuple(q for q in QUANTITIES if q in chosen)

