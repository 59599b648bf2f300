"""Loading the largest MJCF files as they ship: ``robodyn.load`` (XML, default classes, the
body tree, inertia from geoms and meshes) against MuJoCo's ``MjModel.from_xml_path`` on the
same file, in one run.

Files: dm_control's dog (about 200 STL bone meshes, 85 joints), fruit flies (two versions,
108 and 132 joints) and CMU humanoid, and the largest of Gymnasium's (the humanoid); those
whose package is absent are skipped. Each load reads the file afresh (robodyn re-reads
every mesh each time, as MuJoCo does); the median of ``--repeats`` calls is reported with
the ratio robodyn / MuJoCo.

    python benchmarks/bench_mjcf_load.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import importlib.util
import warnings
from pathlib import Path

from timing import median_time  # benchmarks/timing.py, beside this script

import robodyn as rd


def _package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def files() -> list[Path]:
    out = []
    dmc = _package_dir("dm_control")
    if dmc is not None:
        walkers = dmc / "locomotion" / "walkers" / "assets"
        out += [dmc / "suite" / "dog.xml", walkers / "fruitfly_v2" / "fruitfly.xml",
                walkers / "build_fruitfly" / "assets" / "drosophila_fused.xml",
                dmc / "suite" / "humanoid_CMU.xml"]
    gym = _package_dir("gymnasium")
    if gym is not None:
        out.append(gym / "envs" / "mujoco" / "assets" / "humanoid.xml")
    return [p for p in out if p.is_file()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    import mujoco

    print(f"{'file':<28} {'dof':>4} {'robodyn ms':>11} {'MuJoCo ms':>10} {'ratio':>6}")
    for path in files():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rd.PhysicalConsistencyWarning)
            dof = rd.load(str(path)).dof
            ours = median_time(lambda p=path: rd.load(str(p)), args.repeats)
        theirs = median_time(lambda p=path: mujoco.MjModel.from_xml_path(str(p)), args.repeats)
        print(f"{path.parent.name + '/' + path.name:<28} {dof:>4} {ours * 1e3:>11.1f} "
              f"{theirs * 1e3:>10.1f} {ours / theirs:>6.2f}")


if __name__ == "__main__":
    main()
