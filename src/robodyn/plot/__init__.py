"""Pictures of what robodyn computes: motions, torques, energy, the arm itself (Matplotlib);
the arm in a browser (:func:`show`, viser).

* :func:`motion` — ``q``, ``qd``, ``qdd`` against time, one line per joint;
* :func:`torques` — the terms of ``tau = M qdd + C qd + g + F_v qd + F_s sign(qd) + J^T h_e``
  (:meth:`~robodyn.Robot.torque_parts`) stacked per joint, the total on top;
* :func:`energy` — kinetic ``K``, potential ``U``, mechanical ``E = K + U``, what friction
  dissipated and the balance ``E + loss - W_tau - E(0)`` (zero up to integration error);
* :func:`tracking` — a controlled run against its reference, per joint, and the tracking
  error;
* :func:`energy_comparison` — motions between the same end points overlaid: ``q``, ``qd``,
  power and cumulative positive work;
* :func:`friction_fit` — a friction fit's predicted torque against the measured one, and
  the fitted friction curve against the measured friction, per joint;
* :func:`arm` — a stick figure through the link frames, 2D for planar arms, 3D otherwise;
* :func:`manipulability` — the kinematic and dynamic manipulability ellipsoids on the arm;
* :func:`animate` — that stick figure along a simulation, written as a GIF (Pillow) or MP4
  (ffmpeg).

The pictures over time are :mod:`.figures`', the arm's :mod:`.arm_figure`'s, what they
share (a canvas, saving, checked inputs) :mod:`.common`'s. Every function builds a
:class:`matplotlib.figure.Figure` on its own Agg canvas (no ``pyplot``, nothing global
changes, works headless), labels each axis with its unit, returns the figure and, given
``path=``, saves it there. ``import robodyn`` does not import Matplotlib; ``rd.plot``
loads this package (and Matplotlib) on first use.

>>> import robodyn as rd
>>> fig = rd.plot.arm(rd.load("planar-2r"), [0.5, 0.2])  # add path="arm.png" to save it
>>> fig.axes[0].get_xlabel(), fig.axes[0].get_ylabel()
('x [m]', 'y [m]')
"""

from .arm_figure import MAX_FRAMES, animate, animation_writer, arm
from .common import TRAJECTORY_SAMPLES
from .figures import energy, energy_comparison, motion, torques, tracking
from .identification import friction_fit
from .manipulability import manipulability
from .viewer import Viewer, show

__all__ = ["motion", "torques", "energy", "tracking", "energy_comparison", "friction_fit", "arm",
           "animate", "animation_writer", "manipulability", "MAX_FRAMES", "TRAJECTORY_SAMPLES",
           "show", "Viewer"]
