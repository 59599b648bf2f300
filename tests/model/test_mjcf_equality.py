"""MJCF ``<equality joint>`` read as a linear joint coupling (issue 31).

Oracles: MuJoCo. (1) Exactly: the coupled robot's ``M`` and inverse dynamics equal MuJoCo's
``mj_fullM`` and ``mj_inverse`` of the tree reduced by the coupling written out here from
MuJoCo's documented constraint ``y - y0 = c0 + c1 (x - x0)`` (``y0``, ``x0`` the joints'
``ref``): ``q = G y + b``, ``M_y = G^T M G``, ``tau_y = G^T tau(q, G yd, G ydd)``, to 1e-9.
(2) MuJoCo's own simulation of the constraint, made stiff (``solimp`` 0.9999, the largest
impedance MuJoCo allows): its ``qacc`` equals the lifted forward dynamics of the coupled
robot to 1e-3 relative (MuJoCo's soft constraint keeps a regularisation ``(1 - d)/d`` of
1e-4 of the constraint's inertia, so the two differ by about that).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

import robodyn as rd

mujoco = pytest.importorskip("mujoco")

pytestmark = pytest.mark.usefixtures("numpy_backend")

REF_B, REF_C, C0, C1 = 0.3, -0.2, 0.1, -0.7

ARM = f"""\
<mujoco>
  <compiler angle="radian"/>
  <option><flag contact="disable"/></option>
  <worldbody>
    <body name="a" pos="0 0 0.1">
      <inertial pos="0.05 0.01 -0.02" mass="1.5" diaginertia="0.01 0.02 0.015"/>
      <joint name="ja" axis="0 0 1" damping="0"/>
      <body name="b" pos="0.3 0 0.05" euler="0.2 0 0.1">
        <inertial pos="0.1 0 0.02" mass="0.7" diaginertia="0.003 0.004 0.006"/>
        <joint name="jb" axis="0 1 0" ref="{REF_B}"/>
        <body name="c" pos="0.25 0.02 0">
          <inertial pos="0.08 0.01 0" mass="0.4" diaginertia="0.002 0.001 0.002"/>
          <joint name="jc" axis="0.3 1 0.2" ref="{REF_C}"/>
          <body name="d" pos="0.2 0 0">
            <inertial pos="0.03 0 0" mass="0.2" diaginertia="0.001 0.001 0.001"/>
            <joint name="jd" type="slide" axis="1 0 0"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <equality>
    <joint name="couple" joint1="jc" joint2="jb" polycoef="{C0} {C1} 0 0 0" EXTRA/>
  </equality>
</mujoco>
"""


def write(tmp_path, text: str):
    path = tmp_path / "arm.xml"
    path.write_text(textwrap.dedent(text))
    return path


def basis():
    """``q = G y + b`` from MuJoCo's documented ``jc - REF_C = C0 + C1 (jb - REF_B)``."""
    G = np.zeros((4, 3))
    G[0, 0] = G[1, 1] = G[3, 2] = 1.0
    G[2, 1] = C1
    b = np.array([0.0, 0.0, REF_C + C0 - C1 * REF_B, 0.0])
    return G, b


def test_a_linear_joint_equality_is_a_coupling_equal_to_mujocos_reduced_tree(tmp_path):
    path = write(tmp_path, ARM.replace("EXTRA", ""))
    robot = rd.load(path)
    assert robot.dof == 3
    assert robot.joints == ("ja", "jb", "jd")
    assert any("coupling(s) applied" in n for n in robot.provenance.notes)
    m = mujoco.MjModel.from_xml_path(str(path))
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONSTRAINT  # the tree's ID
    d = mujoco.MjData(m)
    G, b = basis()
    rng = np.random.default_rng(3)
    worst = 0.0
    for _ in range(4):
        y, yd, ydd = (rng.uniform(-1.2, 1.2, 3) for _ in range(3))
        d.qpos[:], d.qvel[:] = G @ y + b, G @ yd
        mujoco.mj_forward(m, d)
        d.qacc[:] = G @ ydd
        mujoco.mj_inverse(m, d)
        full = np.zeros((4, 4))
        mujoco.mj_fullM(m, d, full)
        for ours, theirs in ((robot.mass_matrix(y), G.T @ full @ G),
                             (robot.inverse_dynamics(y, yd, ydd), G.T @ d.qfrc_inverse)):
            err = np.abs(ours - theirs).max() / max(1.0, np.abs(theirs).max())
            worst = max(worst, err)
    assert worst <= 1e-9, worst


def _mujoco_qacc(tmp_path, impedance: float, states):
    """MuJoCo's ``qacc`` at ``states`` with the equality's impedance ``d`` (``solimp``)."""
    path = write(tmp_path, ARM.replace(
        "EXTRA", f'solimp="{impedance} {impedance} 0.001 0.5 2" solref="0.02 1"'))
    m = mujoco.MjModel.from_xml_path(str(path))
    m.opt.solver = mujoco.mjtSolver.mjSOL_NEWTON
    m.opt.tolerance = 1e-14
    m.opt.iterations = 200
    d = mujoco.MjData(m)
    out = []
    for q, qd, applied in states:
        d.qpos[:], d.qvel[:], d.qfrc_applied[:] = q, qd, applied
        mujoco.mj_forward(m, d)
        out.append(d.qacc.copy())
    return np.array(out)


def test_mujocos_stiff_constraint_moves_as_the_coupled_robot(tmp_path):
    """On the constraint (MuJoCo's reference acceleration is 0 there) MuJoCo's soft
    constraint leaves an error proportional to ``eps = (1 - d)/d``: at d = 0.999 and 0.9999
    the errors fall tenfold, and the limit eps -> 0 (extrapolated linearly) is the coupled
    robot's forward dynamics."""
    robot = rd.load(write(tmp_path, ARM.replace("EXTRA", "")))
    G, b = basis()
    rng = np.random.default_rng(5)
    states, ours = [], []
    for _ in range(4):
        y, yd, tau = (rng.uniform(-1.0, 1.0, 3) for _ in range(3))
        # G^T of the applied force is tau: joint jc is driven only through the coupling
        states.append((G @ y + b, G @ yd, [tau[0], tau[1], 0.0, tau[2]]))
        ours.append(G @ robot.forward_dynamics(y, yd, tau))
    ours = np.array(ours)
    scale = max(1.0, np.abs(ours).max())
    (d1, a1), (d2, a2) = ((d, _mujoco_qacc(tmp_path, d, states)) for d in (0.999, 0.9999))
    e1, e2 = (np.abs(a - ours).max() / scale for a in (a1, a2))
    assert e2 <= 2e-3 and 8 < e1 / e2 < 12, (e1, e2)
    eps1, eps2 = (1 - d1) / d1, (1 - d2) / d2
    limit = (eps1 * a2 - eps2 * a1) / (eps1 - eps2)
    assert np.abs(limit - ours).max() / scale <= 5e-5


def test_mimic_independent_keeps_mujocos_tree_with_a_note(tmp_path):
    path = write(tmp_path, ARM.replace("EXTRA", ""))
    robot = rd.load(path, mimic="independent")
    assert robot.dof == 4
    assert any("not read: <equality> (1 <joint>)" in n for n in robot.provenance.notes)
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    d.qpos[:] = [0.2, -0.4, 0.9, 0.05]
    mujoco.mj_forward(m, d)
    full = np.zeros((4, 4))
    mujoco.mj_fullM(m, d, full)
    np.testing.assert_allclose(robot.mass_matrix(d.qpos), full, rtol=0, atol=1e-12)


@pytest.mark.parametrize("where", ["element", "default"])
def test_an_inactive_equality_is_left_out_with_a_note(tmp_path, where):
    """``active="false"`` on the element or in the ``<default>`` (MuJoCo's ``eq_active0``
    False either way): the joints move independently, with a note."""
    text = ARM.replace("EXTRA", 'active="false"') if where == "element" else ARM.replace(
        "EXTRA", "").replace("<worldbody>", '<default><equality active="false"/></default>'
                             "<worldbody>", 1)
    path = write(tmp_path, text)
    assert not mujoco.MjModel.from_xml_path(str(path)).eq_active0[0]
    robot = rd.load(path)
    assert robot.dof == 4
    assert any('active="false"' in n for n in robot.provenance.notes)


@pytest.mark.parametrize("extra, message", [
    ('', "polynomial of degree > 1"),
    ('joint2=""', "is not a joint of the model"),
])
def test_what_a_coupling_cannot_be_is_refused_naming_the_element_and_line(tmp_path, extra,
                                                                          message):
    text = ARM.replace("EXTRA", extra)
    if not extra:
        text = text.replace(f'polycoef="{C0} {C1} 0 0 0"', 'polycoef="0 1 0.5"')
    else:
        text = text.replace('joint2="jb" ', "")
    with pytest.raises(rd.ModelError, match=rf"arm.xml:\d+: <joint name='couple'>.*{message}"):
        rd.load(write(tmp_path, text))


def test_a_joint_held_fixed_is_refused_with_the_fix(tmp_path):
    text = ARM.replace('joint2="jb" ', "").replace("EXTRA", "")
    with pytest.raises(rd.ModelError, match=r"arm.xml:\d+: .*no joint2=.*name joint2"):
        rd.load(write(tmp_path, text))


def test_a_coupling_on_a_floating_model_is_left_as_mujocos_tree_with_a_note(tmp_path):
    text = ARM.replace('<joint name="ja" axis="0 0 1" damping="0"/>',
                       "<freejoint/>").replace("EXTRA", "")
    robot = rd.load(write(tmp_path, text))
    assert robot.nv == 6 + 3
    assert any("not coupled (the model has ball or free joints" in n
               for n in robot.provenance.notes)


def _mujocos_mjcf_of(tmp_path, rel: str):
    """The example-robot-data URDF ``rel`` without its meshes, and MuJoCo's MJCF of it (MuJoCo
    writes each ``<mimic>`` as ``<equality joint polycoef="offset multiplier 0 0 0">``)."""
    import re

    text = Path(rd.models.example_robot_data(rel)).read_text()
    text = re.sub(r"<(visual|collision)\b.*?</\1>", "", text, flags=re.S)
    urdf = tmp_path / "robot.urdf"
    urdf.write_text(re.sub(r"<(visual|collision)\b[^>]*/>", "", text))
    xml = tmp_path / "robot.xml"
    mujoco.mj_saveLastXML(str(xml), mujoco.MjModel.from_xml_path(str(urdf)))
    return urdf, xml


@pytest.mark.parametrize("rel", [
    "panda_description/urdf/panda.urdf",
    "baxter_description/urdf/baxter.urdf",
])
def test_mujocos_mjcf_of_a_mimic_urdf_equals_pinocchio_mimic_true(tmp_path, rel):
    """The URDF's ``<mimic>`` through MuJoCo's ``<equality joint>`` and robodyn's coupling
    equals Pinocchio 4's ``buildModelFromUrdf(urdf, mimic=True)``: ``M`` and ID to 1e-5, the
    precision of the file (MuJoCo writes 6 significant digits: its own ``mj_fullM`` of the
    written file differs from that of the URDF by 1.5e-6 relative in the Panda's ``M[0, 0]``);
    the coupling itself is exact (the hand-written file above: 1e-9)."""
    pin = pytest.importorskip("pinocchio")
    urdf, xml = _mujocos_mjcf_of(tmp_path, rel)
    assert "<equality>" in xml.read_text()
    robot = rd.load(xml).without_friction()
    model = pin.buildModelFromUrdf(str(urdf), mimic=True)
    data = model.createData()
    assert model.nv == robot.dof
    joints = [model.joints[model.getJointId(n)] for n in robot.joints]
    index = np.array([j.idx_v for j in joints])
    assert all(j.nq == 1 for j in joints)
    rng = np.random.default_rng(11)
    worst = 0.0
    for _ in range(3):
        y, yd, ydd = rng.uniform(-1, 1, (3, robot.dof))
        qp, vp, ap = pin.neutral(model), np.zeros(model.nv), np.zeros(model.nv)
        qp[[j.idx_q for j in joints]], vp[index], ap[index] = y, yd, ydd
        m_pin = pin.crba(model, data, qp)
        m_pin = np.triu(m_pin) + np.triu(m_pin, 1).T
        for ours, theirs in ((robot.mass_matrix(y), m_pin[np.ix_(index, index)]),
                             (robot.inverse_dynamics(y, yd, ydd),
                              pin.rnea(model, data, qp, vp, ap)[index])):
            worst = max(worst, np.abs(ours - theirs).max() / max(1.0, np.abs(theirs).max()))
    assert worst <= 1e-5, worst  # measured: Panda 1.7e-6


# -- the body forms of <connect> and <weld> ---------------------------------------------------
#: A planar four-bar opened at the rocker's tip (hinges about z), the bodies turned as written
#: (MuJoCo's qpos0 is this pose), the loop closed by the equality put in EQ; stiff constraints.
BODY_FORMS = """<mujoco><compiler angle="radian"/><option gravity="0 -9.81 0" timestep="1e-6"/>
<worldbody>
<body name="crank"><joint name="crank" axis="0 0 1"/>
 <inertial pos="0.1 0 0" mass="1" diaginertia="0.004 0.004 0.004"/>
 <body name="coupler" pos="0.2 0 0" euler="0 0 1.2"><joint name="coupler" axis="0 0 1"/>
  <inertial pos="0.25 0 0" mass="2" diaginertia="0.04 0.04 0.04"/>
  <body name="rocker" pos="0.5 0 0" euler="0 0 -1.0"><joint name="rocker" axis="0 0 1"/>
   <inertial pos="0.2 0 0" mass="1.5" diaginertia="0.02 0.02 0.02"/></body></body></body>
<body name="ground" pos="0.45 0.1 0"/>
</worldbody><equality>EQ</equality><actuator><motor joint="crank"/></actuator></mujoco>"""
STIFF = 'solref="2e-6 1" solimp="0.9999 0.9999 0.001"'
CONNECTS = [f'<connect body1="rocker" body2="ground" anchor="0.4 0 0" {STIFF}/>',
            f'<connect body1="rocker" anchor="0.4 0 0" {STIFF}/>']  # body2: the world
WELDS = [f'<weld body1="rocker" body2="coupler" {STIFF}/>',  # held at qpos0's relative pose
         f'<weld name="w" body1="crank" body2="rocker" anchor="0.1 0.05 0" '
         f'relpose="0.3 0.2 0.1 0.9 0.1 0.2 0.3" {STIFF}/>']


def _body_form(tmp_path, eq):
    mujoco = pytest.importorskip("mujoco")
    text = BODY_FORMS.replace("EQ", eq)
    path = tmp_path / "body_form.xml"
    path.write_text(text)
    model = mujoco.MjModel.from_xml_string(text)
    return mujoco, model, mujoco.MjData(model), rd.load(path)


@pytest.mark.parametrize("eq", CONNECTS + WELDS)
def test_body_forms_close_between_the_points_mujoco_compiles(tmp_path, eq):
    """MuJoCo places the second point of a body-form constraint at the model's reference
    pose (qpos0) and reports the violation as ``efc_pos``: robodyn's closure residual has
    the same position rows (1e-12) at random poses; the rotation rows of a weld measure the
    same turn (MuJoCo's the sine of half the angle, robodyn's the sine of the angle)."""
    mujoco, model, data, robot = _body_form(tmp_path, eq)
    chain = robot.closed_chain()
    loop = chain.loops[0]
    assert loop.kind == ("position" if "connect" in eq else "pose")
    assert loop.frame_a.endswith(":body1") and loop.frame_b.endswith(":body2")
    for q in np.random.default_rng(4).uniform(-1.5, 1.5, (5, 3)):
        data.qpos[:] = q
        mujoco.mj_forward(model, data)
        ours = chain.residual(q)
        np.testing.assert_allclose(ours[:3], data.efc_pos[:3], atol=1e-12)
        if loop.kind == "pose":
            half = np.linalg.norm(data.efc_pos[3:6])
            np.testing.assert_allclose(np.linalg.norm(ours[3:]),
                                       2 * half * np.sqrt(1 - half * half), atol=1e-12)
    if "relpose" not in eq:  # closed at qpos0, where MuJoCo's compiler put the points
        assert np.abs(chain.residual(np.zeros(3))).max() < 1e-15


def test_a_body_form_connect_moves_as_mujocos_stiff_constraint(tmp_path):
    """The four-bar closed by ``<connect body1 body2 anchor>``: robodyn's rigid closure and
    MuJoCo's stiffest soft one agree to the error ``1 - d = 1e-4`` leaves (7.7e-6 measured)."""
    mujoco, model, data, robot = _body_form(tmp_path, CONNECTS[0])
    chain = robot.closed_chain()
    assert list(chain.actuated) == [0]
    q = chain.assemble([0.3], np.zeros(3)).q
    for yd, tau in ((0.0, 0.0), (1.5, 0.4)):
        qd = chain.velocity_map(q) @ [yd]
        qdd, _ = chain.forward_dynamics(q, qd, [tau])
        data.qpos[:], data.qvel[:], data.ctrl[:] = q, qd, [tau]
        mujoco.mj_forward(model, data)
        assert np.abs(data.qacc - qdd).max() < 1e-3 * np.abs(qdd).max()


@pytest.mark.parametrize("eq, message", [
    ('<connect body1="rocker" body2="nowhere" anchor="0 0 0"/>', "no body named 'nowhere'"),
    ('<connect body1="rocker" anchor="0 0"/>', "anchor"),
    ('<weld body1="rocker" relpose="0 0 0 0 0 0 nan"/>', "relpose")])
def test_a_bad_body_form_is_refused_naming_the_attribute(tmp_path, eq, message):
    path = tmp_path / "bad.xml"
    path.write_text(BODY_FORMS.replace("EQ", eq))
    with pytest.raises(rd.ModelError, match=message):
        rd.load(path)


def test_loops_on_a_floating_base_load_as_the_tree_and_the_closed_chain_says_not_yet(tmp_path):
    """A floating base with a loop (a legged robot's knee linkage): the model loads (its
    methods are the open tree's, as MuJoCo's M and bias), and ``closed_chain()`` refuses by
    name instead of failing inside NumPy."""
    path = tmp_path / "floating_loop.xml"
    path.write_text("""<mujoco><worldbody><body name="base" pos="0 0 1"><freejoint/>
      <inertial pos="0 0 0" mass="5" diaginertia="0.1 0.1 0.1"/>
      <body name="a" pos="0.1 0 0"><joint name="a" axis="0 1 0"/>
        <inertial pos="0 0 -0.2" mass="1" diaginertia="0.01 0.01 0.01"/>
        <body name="b" pos="0 0 -0.4"><joint name="b" axis="0 1 0"/>
          <inertial pos="0.1 0 0" mass="1" diaginertia="0.01 0.01 0.01"/></body></body>
      <body name="c" pos="-0.1 0 0"><joint name="c" axis="0 1 0"/>
        <inertial pos="0 0 -0.2" mass="1" diaginertia="0.01 0.01 0.01"/></body>
    </body></worldbody><equality><connect body1="b" body2="c" anchor="0.2 0 0"/></equality>
    <actuator><motor joint="a"/></actuator></mujoco>""")
    robot = rd.load(path)
    assert (robot.nq, robot.nv) == (10, 9)
    assert robot.mass_matrix(robot.neutral()).shape == (9, 9)
    with pytest.raises(rd.ModelError, match="'root_joint' is a free joint; closed mechanisms"):
        robot.closed_chain()
    with pytest.raises(rd.ModelError, match="free joint; closed mechanisms"):
        rd.simulate(robot, robot.neutral(), duration=0.01, dt=1e-3)
