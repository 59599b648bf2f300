"""Forward kinematics and the geometric Jacobian of a chain or tree of links.

The pose of link ``i`` in the base frame is built outward,
``T_0i = T_0,i-1 · P_i · J_i(q_i)`` with ``P_i`` the joint placement and ``J_i``
the joint motion (Siciliano §2.8, eq. 2.50 in chain form); the Jacobian column
of joint ``j`` is ``[z_j × (p_e - o_j); z_j]`` for a revolute joint and
``[z_j; 0]`` for a prismatic one (Siciliano §3.1.3, eq. 3.30), with ``z_j`` the
joint axis and ``o_j`` the joint origin in the base frame.

A tree names its frames (:func:`frame_names`): the base, every link frame, every
:class:`~robodyn.model.chain.Frame` of ``chain.frames``; the Jacobian of a frame fixed to
link ``k`` has nonzero columns only for ``k``'s ancestors (the joints that move it).
"""

from __future__ import annotations

from ..core import linalg3 as la
from ..core.errors import InputError, ModelError, excerpt
from ..model.chain import Chain
from ..model.joints import joint_columns
from ..model.joints import joint_motion as joint_transform

__all__ = ["joint_transform", "link_poses", "frame_table", "frame_names", "unknown_frame",
           "frame_pose", "frame_link", "tip_pose", "forward_kinematics", "jacobian", "BASE_FRAME"]


def link_poses(chain: Chain, q, ops) -> list[tuple[la.Mat3, la.Vec3]]:
    """``(R_0i, o_i)`` of every link frame in the base frame, in the order of the links,
    each from its parent's pose (``T_0i = T_0p · P_i · J_i(q_i)``)."""
    poses: list = []
    values = q if chain.single_valued else chain.per_joint(q, velocity=False)
    for i, (link, qi) in enumerate(zip(chain.links, values, strict=True)):
        parent = chain.parent(i)
        rot, pos = poses[parent] if parent >= 0 else (la.IDENTITY3, la.ZERO3)
        r, p = joint_transform(link.joint, qi, ops)
        pos = la.add(pos, la.matvec(rot, p))
        rot = la.matmul(rot, r)
        poses.append((rot, pos))
    return poses


#: The name of the base frame in :func:`frame_names` (unless a link or frame has it).
BASE_FRAME = "base"


def frame_table(chain: Chain) -> list[tuple[str, int, object]]:
    """``(name, link, placement)`` of every named frame, in the order of
    :func:`frame_names`: the base (link ``-1``, placement ``None``: the identity), every
    link frame (placement ``None``), then every frame of ``chain.frames``. A name already
    taken (a frame named as a link) keeps its first meaning."""
    table: list = []
    seen: set = set()
    names = [link.name for link in chain.links] + [f.name for f in chain.frames]
    entries = [(link.name, i, None) for i, link in enumerate(chain.links)]
    for k, f in enumerate(chain.frames):
        if not isinstance(f.link, int) or isinstance(f.link, bool) \
                or not -1 <= f.link < chain.dof:
            raise ModelError(f"frames[{k}] ({f.name!r:.60}): link {f.link!r:.40} is not the "
                             f"index of a link (0 to {chain.dof - 1}) or -1 (the base)")
        entries.append((f.name, f.link, f.placement))
    if BASE_FRAME not in names:  # the world's frame, or a free-flying base's body
        entries.insert(0, (BASE_FRAME, 0 if chain.floating else -1, None))
    for name, link, placement in entries:
        if name and name not in seen:
            seen.add(name)
            table.append((name, link, placement))
    return table


def frame_names(chain: Chain) -> tuple[str, ...]:
    """The names of the frames :func:`frame_pose` and :func:`jacobian` take (by index)."""
    return tuple(name for name, _, _ in frame_table(chain))


def unknown_frame(robot_name: str, frame, names: tuple[str, ...]) -> Exception:
    """The error for a ``frame=`` that is not one of ``names`` (a non-string: an
    :class:`InputError`; an unknown name: a :class:`ModelError` with the closest names)."""
    if not isinstance(frame, str):
        return InputError(f"{robot_name}: frame: expected a frame name (a string of "
                          f"robot.frames), got {excerpt(frame)}")
    import difflib  # only for this error

    close = difflib.get_close_matches(frame, names, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
    listed = ", ".join(names[:20]) + (f", ... ({len(names)} in all)" if len(names) > 20 else "")
    return ModelError(f"{robot_name}: frame: {excerpt(frame)} is not a frame of this "
                      f"robot{hint} (robot.frames: {listed})")


def frame_pose(chain: Chain, poses, frame: int) -> tuple[la.Mat3, la.Vec3]:
    """``(R_0f, o_f)`` of frame number ``frame`` of :func:`frame_table` in the base frame,
    from the link poses; ``frame=None`` is the end effector."""
    if frame is None:
        return tip_pose(chain, poses)
    _, link, placement = frame_table(chain)[frame]
    rot, pos = poses[link] if link >= 0 else (la.IDENTITY3, la.ZERO3)
    if placement is None:
        return rot, pos
    return (la.matmul(rot, placement.rotation),
            la.add(pos, la.matvec(rot, placement.translation)))


def frame_link(chain: Chain, frame: int | None) -> int:
    """The link frame number ``frame`` is fixed to (``-1`` the base; ``None``: the end
    effector, on the last link)."""
    return chain.dof - 1 if frame is None else frame_table(chain)[frame][1]


def tip_pose(chain: Chain, poses) -> tuple[la.Mat3, la.Vec3]:
    """The end-effector frame in the base frame, from the last link's pose."""
    rot, pos = poses[-1]
    return la.matmul(rot, chain.tip.rotation), la.add(pos, la.matvec(rot, chain.tip.translation))


def forward_kinematics(chain: Chain, q, ops, frame: int | None = None) -> list[list]:
    """The end-effector frame (or frame number ``frame`` of :func:`frame_table`) in the
    base frame: the top three rows ``[R | p]`` of the homogeneous transform ``T_0e``."""
    rot, pos = frame_pose(chain, link_poses(chain, q, ops), frame)
    return [[*rot[r], pos[r]] for r in range(3)]


def jacobian(chain: Chain, q, ops, poses=None, frame: int | None = None) -> list[list]:
    """Geometric Jacobian at the end-effector origin (or that of frame number ``frame`` of
    :func:`frame_table`), base frame, rows ``(v_x, v_y, v_z, w_x, w_y, w_z)``:
    ``v_e = J qd``."""
    poses = poses or link_poses(chain, q, ops)
    _, p_e = frame_pose(chain, poses, frame)
    # a tree: only the ancestors of the frame's link move it
    support = set(chain.ancestors(frame_link(chain, frame)))
    cols = []
    for j, (link, (rot, origin)) in enumerate(zip(chain.links, poses, strict=True)):
        if j not in support:
            cols += [(0,) * 6] * link.joint.nv
            continue
        for angular, linear in joint_columns(link.joint):
            if angular is la.ZERO3:  # a translation along z
                cols.append(la.matvec(rot, linear) + (0, 0, 0))
                continue
            z = la.matvec(rot, angular)  # a rotation about z through the link origin
            cols.append(la.cross(z, la.sub(p_e, origin)) + z)
    return [[col[r] for col in cols] for r in range(6)]
