"""``robodyn check`` on a model with a free joint: a free body's gravity wrench in its own
frame is ``R^T (0, 0, -m g)`` (``f = -R^T m g0``, by hand), written with any unit
quaternion identity, is correct; a sign slip is named."""

from __future__ import annotations

from robodyn.cli import main

DRONE = """
    name: drone
    floating: true
    gravity: [0, 0, -g]
    base: {mass: m, com: [0, 0, 0], inertia: [Ixx, Iyy, Izz, 0, 0, 0]}
    links: []
    """

# R^T e_z m g with R of (qx, qy, qz, qw): the third row of R, times m g
RIGHT = ("[2*g*m*(qx1*qz1 - qw1*qy1), 2*g*m*(qw1*qx1 + qy1*qz1), "
         "g*m*(qw1^2 - qx1^2 - qy1^2 + qz1^2), 0, 0, 0]")


def test_check_takes_a_free_body(tmp_path, capsys):
    from conftest import write_model

    model = str(write_model(tmp_path, DRONE))
    assert main(["check", model, "--g", RIGHT,
                 "--M", "[[m,0,0,0,0,0],[0,m,0,0,0,0],[0,0,m,0,0,0],[0,0,0,Ixx,0,0],"
                        "[0,0,0,0,Iyy,0],[0,0,0,0,0,Izz]]"]) == 0
    out = capsys.readouterr().out
    assert "M, g correct" in out
    assert main(["check", model, "--g", RIGHT.replace("qx1*qz1 - qw1*qy1",
                                                       "qx1*qz1 + qw1*qy1")]) == 1
    out = capsys.readouterr().out
    assert "g1: sign" in out and "qw1 qy1" in out
