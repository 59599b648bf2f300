"""3-vector and 3x3-matrix algebra on tuples of scalars.

Every algorithm in robodyn is written once, on scalars: a vector is a tuple of
three scalars and a matrix a tuple of three rows. A scalar may be a float, a
NumPy array (one entry per sample), a SymPy expression, or a traced variable
of :mod:`robodyn.codegen.tape`, so the same recursion gives numbers, closed
forms and generated code (the spatial_v2 idea, see ``shared/STYLE.md``).
Writing components as separate scalars is also what makes the batched NumPy
code fast: one elementwise operation on ``(N,)`` arrays is far cheaper than a
stacked small-matrix product.
"""

from __future__ import annotations

from typing import Any

Scalar = Any
Vec3 = tuple[Scalar, Scalar, Scalar]
Mat3 = tuple[Vec3, Vec3, Vec3]

ZERO3: Vec3 = (0, 0, 0)
IDENTITY3: Mat3 = ((1, 0, 0), (0, 1, 0), (0, 0, 1))


def add(a: Vec3, b: Vec3) -> Vec3:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def sub(a: Vec3, b: Vec3) -> Vec3:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def neg(a: Vec3) -> Vec3:
    return (-a[0], -a[1], -a[2])


def scale(s: Scalar, a: Vec3) -> Vec3:
    return (s * a[0], s * a[1], s * a[2])


def dot(a: Vec3, b: Vec3) -> Scalar:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a: Vec3, b: Vec3) -> Vec3:
    return (
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    )


def matvec(m: Mat3, v: Vec3) -> Vec3:
    """``m @ v``."""
    return (dot(m[0], v), dot(m[1], v), dot(m[2], v))


def tmatvec(m: Mat3, v: Vec3) -> Vec3:
    """``m.T @ v``."""
    return (
        m[0][0] * v[0] + m[1][0] * v[1] + m[2][0] * v[2],
        m[0][1] * v[0] + m[1][1] * v[1] + m[2][1] * v[2],
        m[0][2] * v[0] + m[1][2] * v[1] + m[2][2] * v[2],
    )


def transpose(m: Mat3) -> Mat3:
    return (
        (m[0][0], m[1][0], m[2][0]),
        (m[0][1], m[1][1], m[2][1]),
        (m[0][2], m[1][2], m[2][2]),
    )


def matmul(a: Mat3, b: Mat3) -> Mat3:
    bt = transpose(b)
    return tuple(tuple(dot(row, col) for col in bt) for row in a)  # type: ignore[return-value]


def mat_add(a: Mat3, b: Mat3) -> Mat3:
    return tuple(add(ra, rb) for ra, rb in zip(a, b, strict=True))  # type: ignore[return-value]


def rotate_tensor(r: Mat3, t: Mat3) -> Mat3:
    """``r @ t @ r.T`` for a symmetric tensor ``t`` (e.g. an inertia), kept symmetric."""
    rt = matmul(r, t)
    out = [[None] * 3 for _ in range(3)]
    for i in range(3):
        for j in range(i, 3):
            out[i][j] = out[j][i] = dot(rt[i], r[j])
    return tuple(tuple(row) for row in out)  # type: ignore[return-value]


def point_mass_tensor(m: Scalar, c: Vec3) -> Mat3:
    """``m (|c|^2 1 - c c^T)``: the inertia of mass ``m`` at ``c`` about the origin."""
    xx, yy, zz = c[0] * c[0], c[1] * c[1], c[2] * c[2]
    xy, xz, yz = -m * (c[0] * c[1]), -m * (c[0] * c[2]), -m * (c[1] * c[2])
    return (
        (m * (yy + zz), xy, xz),
        (xy, m * (xx + zz), yz),
        (xz, yz, m * (xx + yy)),
    )


def rotation_about_axis(axis: Vec3, c: Scalar, s: Scalar) -> Mat3:
    """Rotation by the angle with cosine ``c`` and sine ``s`` about a unit ``axis``.

    Axes along a coordinate direction (the DH ``z``, most URDF axes) give the
    textbook matrix exactly; other axes use Rodrigues' formula
    ``R = c 1 + s [a]x + (1 - c) a a^T``.
    """
    coordinate = _coordinate_axis(axis)
    if coordinate is not None:
        k, sign = coordinate
        s = s if sign > 0 else -s
        if k == 0:
            return ((1, 0, 0), (0, c, -s), (0, s, c))
        if k == 1:
            return ((c, 0, s), (0, 1, 0), (-s, 0, c))
        return ((c, -s, 0), (s, c, 0), (0, 0, 1))
    x, y, z = axis
    v = 1 - c
    return (
        (c + v * x * x, v * x * y - s * z, v * x * z + s * y),
        (v * x * y + s * z, c + v * y * y, v * y * z - s * x),
        (v * x * z - s * y, v * y * z + s * x, c + v * z * z),
    )


def _coordinate_axis(axis: Vec3) -> tuple[int, int] | None:
    nonzero = [(k, a) for k, a in enumerate(axis) if not _is_exact(a, 0)]
    if len(nonzero) != 1:
        return None
    k, a = nonzero[0]
    if _is_exact(a, 1):
        return k, 1
    if _is_exact(a, -1):
        return k, -1
    return None


def _is_exact(x: Scalar, value: int) -> bool:
    try:
        return bool(x == value)
    except (TypeError, ValueError):
        return False
