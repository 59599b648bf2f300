"""``robot.to_jax()`` and ``robot.to_casadi()`` (issue 19): the traced programs walked with
JAX and CasADi operations, checked against robodyn's own kernels (the oracle: the same
algorithms, run by NumPy) to 1e-12, and their automatic derivatives against robodyn's
forward-mode derivative kernels to 1e-9.

JAX compiles (``jax.jit``) slowly on the CPU for programs of thousands of scalar
operations, so most values are checked eagerly (every operation dispatched: the same
arithmetic) and ``jit``/``vmap``/``grad`` together on small arms.
"""

from __future__ import annotations

import importlib.metadata
import math
import warnings

import numpy as np
import pytest

import robodyn as rd
from conftest import MODEL_NAMES, random_states, run_bounded
from robodyn.core.errors import InputError
from robodyn.dynamics.registry import KERNELS
from robodyn.model import builtin as models

N = 4
RTOL = 1e-12
DRTOL = 1e-9
URDFS = {"ur5": ("ur_description/urdf/ur5_robot.urdf", "tool0"),
         "panda": ("panda_description/urdf/panda.urdf", "panda_hand")}
#: The functions checked on every model; every function is checked on SMALL.
CORE = ("inverse_dynamics", "forward_dynamics", "mass_matrix", "gravity_torques",
        "forward_kinematics", "jacobian")
SMALL = ("rp-arm", "planar-3r")


@pytest.fixture(scope="module", autouse=True)
def numpy_kernels():
    """robodyn's oracle kernels on the NumPy backend (no Numba compile time)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ROBODYN_BACKEND", "numpy")
        yield


@pytest.fixture(scope="module")
def jax():
    jax = pytest.importorskip("jax", reason="JAX is not installed (pip install 'robodyn[jax]')")
    old = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield jax
    jax.config.update("jax_enable_x64", old)


@pytest.fixture(scope="module")
def ca():
    return pytest.importorskip("casadi",
                               reason="CasADi is not installed (pip install 'robodyn[casadi]')")


_ROBOTS: dict = {}


def robot_named(name: str):
    if name not in _ROBOTS:
        if name in URDFS:
            try:
                importlib.metadata.distribution("example-robot-data")
            except importlib.metadata.PackageNotFoundError:
                pytest.skip("example-robot-data is not installed")
            path, tip = URDFS[name]
            _ROBOTS[name] = rd.load(models.example_robot_data(path), tip=tip)
        else:
            with warnings.catch_warnings():  # the PUMA's published inertias (a known warning)
                warnings.simplefilter("ignore", rd.PhysicalConsistencyWarning)
                _ROBOTS[name] = rd.load(name)
    return _ROBOTS[name]


def states(robot, n=N, seed=1):
    q, qd, qdd = random_states(robot, n, seed)
    rng = np.random.default_rng(seed + 1)
    return {"q": q, "qd": qd, "qdd": qdd, "tau": 5 * rng.normal(size=q.shape),
            "h_e": rng.normal(size=(n, 6))}


def reference(robot, name: str, args: dict):
    """robodyn's own result of registry entry ``name``, as the method returns it."""
    spec = KERNELS[name]
    values = [args[k] for k in spec.inputs]
    base = name.removesuffix("_contact")
    if name.endswith("_contact"):
        out = getattr(robot, base)(*values[:-1], h_e=values[-1])
    else:
        out = getattr(robot, base)(*values)
    if base == "torque_parts":
        return out.as_dict()
    return out


def assert_close(ours, ref, rtol, what):
    if isinstance(ref, dict):
        assert list(ours) == list(ref), what
        for key in ref:
            assert_close(ours[key], ref[key], rtol, f"{what}.{key}")
        return
    if isinstance(ref, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(ref), what
        for k, (a, b) in enumerate(zip(ours, ref)):
            assert_close(a, b, rtol, f"{what}[{k}]")
        return
    ours, ref = np.asarray(ours, dtype=float), np.asarray(ref, dtype=float)
    assert ours.shape == ref.shape, f"{what}: shape {ours.shape} != {ref.shape}"
    scale = max(1.0, float(np.max(np.abs(ref), initial=0.0)))
    np.testing.assert_allclose(ours, ref, rtol=rtol, atol=rtol * scale, err_msg=what)


def call(fns, name, args, robot):
    values = [args[k] for k in KERNELS[name].inputs]
    if fns.mode == "argument":
        values = [np.asarray(fns.parameter_values), *values]
    return fns[name](*values)


def casadi_call(fn, values, n_out, batch):
    """A CasADi function over a batch of states (one call per state), as arrays."""
    outs = [[] for _ in range(n_out)]
    for k in range(batch):
        res = fn(*[v if np.ndim(v) == 1 else v[k] for v in values])
        res = res if isinstance(res, tuple) else (res,)
        for j, r in enumerate(res):
            outs[j].append(np.array(r))
    return [np.stack(o) for o in outs]


def casadi_as_method(robot, name, fns, args, batch=N):
    """The CasADi function's results shaped as the robot method's."""
    from robodyn.codegen.export.autodiff import layout

    values = [args[k] for k in KERNELS[name].inputs]
    if fns.mode == "argument":
        values = [np.asarray(fns.parameter_values), *values]
    outputs = layout(name, robot.dof, robot.chain)
    res = casadi_call(fns[name], values, len(outputs), batch)
    shaped = [r.reshape(batch, *o.shape) for r, o in zip(res, outputs)]
    if name.removesuffix("_contact") == "torque_parts":
        return {o.name: r for o, r in zip(outputs, shaped)}
    return shaped[0] if len(shaped) == 1 else tuple(shaped)


# -- values --------------------------------------------------------------------------------

@pytest.mark.parametrize("parameters", ["baked", "argument"])
@pytest.mark.parametrize("model", [*MODEL_NAMES, *URDFS])
def test_jax_equals_the_core(jax, model, parameters):
    robot = robot_named(model)
    args = states(robot)
    fns = robot.to_jax(parameters=parameters)
    names = KERNELS if model in SMALL else CORE
    for name in names:
        out = call(fns, name, args, robot)
        assert_close(out, reference(robot, name, args), RTOL, f"{model} {name} {parameters}")
    if parameters == "argument":
        assert fns.parameters == robot.symbols


@pytest.mark.parametrize("parameters", ["baked", "argument"])
@pytest.mark.parametrize("model", [*MODEL_NAMES, *URDFS])
def test_casadi_equals_the_core(ca, model, parameters):
    robot = robot_named(model)
    args = states(robot, n=2)
    fns = robot.to_casadi(parameters=parameters)
    names = KERNELS if model in SMALL else CORE
    for name in names:
        out = casadi_as_method(robot, name, fns, args, batch=2)
        assert_close(out, reference(robot, name, args), RTOL, f"{model} {name} {parameters}")
        fn = fns[name]
        assert fn.name() == name
        expected = (["p"] if parameters == "argument" else []) + list(KERNELS[name].inputs)
        assert fn.name_in() == expected


def test_parameter_argument_changes_the_result_as_with_values(jax, ca):
    robot = robot_named("planar-2r")
    args = states(robot)
    heavier = robot.with_values(m2=robot.values["m2"] * 3)
    p = np.array([heavier.values[s] for s in robot.symbols])
    tau = robot.to_jax(["inverse_dynamics"], parameters="argument").inverse_dynamics(
        p, args["q"], args["qd"], args["qdd"])
    assert_close(tau, heavier.inverse_dynamics(args["q"], args["qd"], args["qdd"]), RTOL, "jax")
    f = robot.to_casadi("inverse_dynamics", parameters="argument").inverse_dynamics
    got = np.array(f(p, args["q"][0], args["qd"][0], args["qdd"][0])).ravel()
    assert_close(got, heavier.inverse_dynamics(args["q"][0], args["qd"][0], args["qdd"][0]),
                 RTOL, "casadi")


# -- derivatives ------------------------------------------------------------------------------
def test_gradient_with_respect_to_the_parameters_is_the_difference_quotient(jax):
    """In argument mode jax.grad wrt p equals central differences of robodyn's own
    inverse dynamics over robot.with_values (the identification use)."""
    robot = robot_named("planar-2r")
    args = {k: v[0] for k, v in states(robot, n=1, seed=11).items()}
    fns = robot.to_jax("inverse_dynamics", parameters="argument")
    p = np.asarray(fns.parameter_values)

    def loss(p):
        return jax.numpy.sum(fns.inverse_dynamics(p, args["q"], args["qd"], args["qdd"]))

    grad = np.asarray(jax.grad(loss)(p))
    for j, name in enumerate(fns.parameters):
        h = 1e-6 * max(1.0, abs(p[j]))
        up, down = (np.sum(robot.with_values({name: p[j] + s}).inverse_dynamics(
            args["q"], args["qd"], args["qdd"])) for s in (h, -h))
        assert grad[j] == pytest.approx((up - down) / (2 * h), rel=1e-6, abs=1e-6), name

DERIVATIVE_MODELS = ["rp-arm", "puma560", "ur5", "panda"]


@pytest.mark.slow  # eager jacfwd and jacrev: 20-30 s each on a loaded 2-core machine
@pytest.mark.parametrize("model", ["rp-arm", "puma560"])  # the Panda: reverse mode below
def test_jax_derivatives_equal_robodyns(jax, model):
    robot = robot_named(model)
    args = {k: v[0] for k, v in states(robot, n=1, seed=7).items()}
    fns = robot.to_jax(["inverse_dynamics", "forward_dynamics"])
    for name, third in (("inverse_dynamics", "qdd"), ("forward_dynamics", "tau")):
        x = (args["q"], args["qd"], args[third])
        ref = getattr(robot, f"{name}_derivatives")(*x)
        fwd = jax.jacfwd(fns[name], argnums=(0, 1, 2))(*x)
        rev = jax.jacrev(fns[name], argnums=(0, 1, 2))(*x)
        assert_close(tuple(fwd), ref, DRTOL, f"{model} jacfwd {name}")
        assert_close(tuple(rev), ref, DRTOL, f"{model} jacrev {name}")


@pytest.mark.parametrize("model", DERIVATIVE_MODELS)
def test_casadi_jacobians_equal_robodyns(ca, model):
    robot = robot_named(model)
    args = {k: v[0] for k, v in states(robot, n=1, seed=7).items()}
    fns = robot.to_casadi(["inverse_dynamics", "forward_dynamics"])
    n = robot.dof
    for name, third in (("inverse_dynamics", "qdd"), ("forward_dynamics", "tau")):
        x = [ca.SX.sym(k, n) for k in ("q", "qd", third)]
        y = fns[name](*x)
        jac = ca.Function("jacobians", x, [ca.jacobian(y, v) for v in x])
        got = tuple(np.array(j) for j in jac(args["q"], args["qd"], args[third]))
        ref = getattr(robot, f"{name}_derivatives")(args["q"], args["qd"], args[third])
        assert_close(got, ref, DRTOL, f"{model} casadi.jacobian {name}")


@pytest.mark.parametrize("model", ["planar-2r", "rp-arm"])
def test_jit_vmap_grad_compose_and_grad_is_the_chain_rule(jax, model):
    """jax.jit(jax.vmap(jax.grad(loss))) of a loss through forward_dynamics equals the chain
    rule with robodyn's forward-dynamics derivatives."""
    jnp = jax.numpy
    robot = robot_named(model)
    args = states(robot, n=5, seed=3)
    fd = robot.to_jax("forward_dynamics").forward_dynamics
    w = np.linspace(0.5, 2.0, robot.dof)

    def loss(q, qd, tau):
        return jnp.sum(w * fd(q, qd, tau) ** 2)

    grads = jax.jit(jax.vmap(jax.grad(loss, argnums=(0, 1, 2))))(
        args["q"], args["qd"], args["tau"])
    qdd = robot.forward_dynamics(args["q"], args["qd"], args["tau"])
    derivs = robot.forward_dynamics_derivatives(args["q"], args["qd"], args["tau"])
    chain = tuple(np.einsum("bi,bij->bj", 2 * w * qdd, d) for d in derivs)
    assert_close(tuple(grads), chain, DRTOL, f"{model} grad of the loss")
    tau = jax.jit(jax.vmap(robot.to_jax("inverse_dynamics").inverse_dynamics))(
        args["q"], args["qd"], args["qdd"])
    assert_close(tau, robot.inverse_dynamics(args["q"], args["qd"], args["qdd"]), RTOL, "jit")


@pytest.mark.slow
def test_grad_through_the_pandas_forward_dynamics(jax):
    robot = robot_named("panda")
    args = {k: v[0] for k, v in states(robot, n=1, seed=5).items()}
    fd = robot.to_jax("forward_dynamics").forward_dynamics
    target = np.linspace(-1, 1, robot.dof)

    def loss(q, qd, tau):
        return 0.5 * jax.numpy.sum((fd(q, qd, tau) - target) ** 2)

    grads = jax.grad(loss, argnums=(0, 1, 2))(args["q"], args["qd"], args["tau"])
    residual = robot.forward_dynamics(args["q"], args["qd"], args["tau"]) - target
    derivs = robot.forward_dynamics_derivatives(args["q"], args["qd"], args["tau"])
    assert_close(tuple(grads), tuple(residual @ d for d in derivs), DRTOL, "panda grad")


# -- options, precision, errors -----------------------------------------------------------------
def test_float32_on_request_and_a_clear_error_without_x64(jax):
    robot = robot_named("planar-2r")
    args = states(robot)
    fns = robot.to_jax("inverse_dynamics", dtype="float32")
    tau = fns.inverse_dynamics(args["q"], args["qd"], args["qdd"])
    assert tau.dtype == np.float32
    ref = robot.inverse_dynamics(args["q"], args["qd"], args["qdd"])
    np.testing.assert_allclose(tau, ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())
    f64 = robot.to_jax("inverse_dynamics").inverse_dynamics
    jax.config.update("jax_enable_x64", False)
    try:
        with pytest.raises(InputError, match=r"jax_enable_x64.*dtype='float32'"):
            robot.to_jax()
        with pytest.raises(InputError, match="jax_enable_x64"):
            f64(args["q"], args["qd"], args["qdd"])  # made before x64 was turned off
    finally:
        jax.config.update("jax_enable_x64", True)


def test_bad_arguments_are_clear_errors(jax, ca):
    robot = robot_named("planar-2r")
    fns = robot.to_jax()
    q = np.zeros(2)
    bad_calls = [
        (lambda: fns.inverse_dynamics(q, q), r"inverse_dynamics: missing .*qdd"),
        (lambda: fns.inverse_dynamics(q, q, q, q), r"too many .*\(q, qd, qdd\)"),
        (lambda: fns.inverse_dynamics(np.zeros(3), q, q), r"q: expected shape \(\.\.\., 2\)"),
        (lambda: fns.inverse_dynamics(q, "fast", q), r"qd: expected .*real numbers"),
        (lambda: fns.inverse_dynamics(q, q, q + 1j), r"qdd: expected real numbers, got complex"),
        (lambda: fns.inverse_dynamics(q, np.array([True, False]), q), "got booleans"),
        (lambda: fns.inverse_dynamics(np.zeros((3, 2)), np.zeros((4, 2)), q),
         "batch shapes do not broadcast"),
        (lambda: fns.inverse_dynamics_contact(q, q, q, np.zeros(5)),
         r"h_e: expected shape \(\.\.\., 6\) \(a wrench"),
        (lambda: robot.to_jax("inverse_dynamic"), r"functions: 'inverse_dynamic' is not a"),
        (lambda: robot.to_jax(functions=3), "functions: expected a name or a list"),
        (lambda: robot.to_jax(parameters="symbolic"), "parameters: 'symbolic' is not a mode"),
        (lambda: robot.to_jax(dtype="float16"), "dtype: 'float16' is not supported"),
        (lambda: robot.to_casadi(["mass_matrix", "Mass"]), "functions: 'Mass' is not a"),
        (lambda: robot.to_casadi(name=3), "name: expected a string"),
        (lambda: robot.to_jax(parameters="argument").mass_matrix(np.zeros(3), q),
         rf"p: expected shape \(\.\.\., {len(robot.symbols)}\) \(the parameter vector"),
    ]
    for bad, message in bad_calls:
        with pytest.raises(InputError, match=message):
            bad()
    with pytest.raises(AttributeError, match="have no 'inverse'; they are inverse_dynamics"):
        fns.inverse  # noqa: B018
    # a single number is that number for every joint, as in robodyn's methods
    assert_close(fns.inverse_dynamics(0.3, 0.0, 1.0),
                 robot.inverse_dynamics(0.3, 0.0, 1.0), RTOL, "scalar")


def test_hostile_names_reach_no_name(ca, jax):
    """A model's text never becomes a CasADi name; prefixes are made identifiers, and the
    functions work and generate C."""
    hostile = 'x"; #include <stdio.h> */ class café\\'
    robot = rd.Robot.from_dh([(1, 0, 0, 0), (1, 0, 0, 0)], masses=["m1", 2.0],
                             values={"m1": 1.0}, name=hostile, planar=True)
    fns = robot.to_casadi(["inverse_dynamics", "mass_matrix"], parameters="argument",
                          name=hostile)
    for fn in fns.values():
        assert ca.Function.check_name(fn.name()), fn.name()
        assert fn.name().endswith(("_inverse_dynamics", "_mass_matrix"))
        assert all(s.isidentifier() for s in fn.name_in() + fn.name_out())
    generator = ca.CodeGenerator("hostile.c")
    generator.add(fns.mass_matrix)
    c_text = generator.dump()
    assert hostile not in c_text and "#include <stdio.h> */" not in c_text
    args = states(robot)
    tau = robot.to_jax("inverse_dynamics").inverse_dynamics(args["q"], args["qd"], args["qdd"])
    assert_close(tau, robot.inverse_dynamics(args["q"], args["qd"], args["qdd"]), RTOL, "jax")
    assert repr(fns).startswith("<CasADi functions of ")


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:os.fork")  # the child execs at once
def test_import_robodyn_imports_neither_jax_nor_casadi():
    code = ("import sys, numpy as np, robodyn as rd\n"
            "import robodyn.codegen.export, robodyn.codegen.export.autodiff\n"
            "r = rd.load('planar-2r'); r.inverse_dynamics(np.zeros(2), np.zeros(2), np.ones(2))\n"
            "assert 'jax' not in sys.modules and 'casadi' not in sys.modules, 'imported'\n")
    done = run_bounded(["-c", code], timeout=60, memory_mb=4096,
                       env={**__import__("os").environ, "ROBODYN_BACKEND": "numpy"})
    assert done.returncode == 0, done.stderr


@pytest.mark.slow  # a fresh interpreter importing robodyn: seconds on a loaded machine
@pytest.mark.filterwarnings("ignore:os.fork")
def test_a_missing_package_names_the_extra():
    code = ("import sys; sys.modules['jax'] = sys.modules['casadi'] = None\n"
            "import robodyn as rd\n"
            "from robodyn.core.errors import RobodynError\n"
            "robot = rd.load('planar-2r')\n"
            "for method in (robot.to_jax, robot.to_casadi):\n"
            "    try:\n"
            "        method()\n"
            "    except RobodynError as exc:\n"
            "        print(exc)\n")
    done = run_bounded(["-c", code], timeout=60, memory_mb=4096)
    assert done.returncode == 0, done.stderr
    for extra in ("jax", "casadi"):
        assert f"pip install 'robodyn[{extra}]'" in done.stdout, done.stdout


def test_every_registry_entry_has_named_results():
    from robodyn.codegen.export.autodiff import layout

    robot = robot_named("rp-arm")
    for name, spec in KERNELS.items():
        assert spec.output != "out", name  # named in its registry entry
        assert not spec.parts or len(spec.parts) == spec.shape(robot.nv, len(robot.links))[0], name
        outs = layout(name, robot.dof, robot.chain)
        assert tuple(o.name for o in outs) == (spec.parts or (spec.output,)), name
        if name.removesuffix("_contact") not in ("forward_kinematics", "regressor"):
            size = math.prod(spec.shape(robot.nv, len(robot.links)))
            assert sum(math.prod(o.shape) for o in outs) == size
