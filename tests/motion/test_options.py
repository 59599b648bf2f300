"""The options of rd.simulate in one object (robodyn.motion.options.SimulationOptions):
checked once, in the order of the signature, with errors that name the option."""

from __future__ import annotations

import numpy as np
import pytest

from robodyn.core.errors import InputError
from robodyn.motion.options import SimulationOptions


def test_the_options_are_checked_and_their_grid_built_once():
    options = SimulationOptions.checked(duration=0.5, dt=1e-3, sample_dt=0.01)
    assert (options.method, options.dt, options.sample_dt) == ("rk4", 0.001, 0.01)
    assert len(options.times) == 501 and options.keep.tolist() == list(range(0, 501, 10))
    adaptive = SimulationOptions.checked(duration=0.5, sample_dt=0.1, method="DOP853")
    assert adaptive.method == "dop853" and adaptive.keep is None
    np.testing.assert_allclose(adaptive.times, [0, 0.1, 0.2, 0.3, 0.4, 0.5])
    assert SimulationOptions.checked().times is None  # rk45 at its own steps
    with pytest.raises(AttributeError):
        options.dt = 0.1  # frozen


def test_one_rollout_keeps_every_fixed_step_and_reports_nothing_itself():
    options = SimulationOptions.checked(duration=0.5, dt=1e-3, sample_dt=0.01, progress=True)
    alone = options.one_rollout()
    assert (alone.progress, alone.check_limits, alone.sample_dt, alone.keep) == \
        (False, False, None, None)
    assert alone.times is options.times and alone.dt == options.dt
    adaptive = SimulationOptions.checked(duration=0.5, sample_dt=0.1).one_rollout()
    assert adaptive.sample_dt == 0.1 and len(adaptive.times) == 6  # the batch's one grid


@pytest.mark.parametrize("options, message", [
    ({"duration": -1, "method": "euler"}, "duration: expected a positive number"),
    ({"method": "euler", "dt": 5.0}, "method: 'euler' is not one of"),
    ({"method": "rk4"}, "fixed-step method: give dt"),
    ({"dt": 5.0, "rtol": 0}, "dt: 5 s is longer than the duration 1 s"),
    ({"dt": 1e-3, "sample_dt": 0.0015, "rtol": 0}, "sample_dt: 0.0015 s is not a whole multiple"),
    ({"rtol": 0, "max_steps": 0}, "rtol, atol: invalid tolerances"),
    ({"max_steps": 0, "max_step": -1}, "max_steps: expected a whole number"),
    ({"max_step": -1}, "max_step: expected a positive number"),
    ({"max_step": 1e-7}, "max_step: 1e-07 s takes at least 10,000,000 steps"),
    ({"progress": "yes", "duration": -1}, "progress: expected True, False, None"),
])
def test_the_first_wrong_option_in_the_signature_s_order_is_named(options, message):
    with pytest.raises(InputError, match=message):
        SimulationOptions.checked(**options)
