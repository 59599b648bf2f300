"""Loading the largest MJCF files as they ship: ``robodyn.load`` (XML, default classes, the
body tree, inertia from geoms and meshes) against MuJoCo's ``MjModel.from_xml_path`` on the
same file, in one run.

Files: dm_control's dog (about 200 STL bone meshes, 85 joints) and dog_v2 (the same bones,
read from the suite's folder with ``asset_root`` the dm_control package), fruit flies (two
versions, 108 and 132 joints) and CMU humanoid, and the largest of Gymnasium's (the humanoid); those
whose package is absent are skipped. Both keep a file's meshes for the process (MuJoCo its
``mjCache`` of compiled assets, robodyn each mesh file's solid, keyed by the file's
identity): the first load of each file (MuJoCo's first also pays its one-time start) and
the median of ``--repeats`` later calls are reported, with the ratio robodyn / MuJoCo.

    python benchmarks/bench_mjcf_load.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import importlib.util
import time
import warnings
from pathlib import Path

from timing import median_time  # benchmarks/timing.py, beside this script

import robodyn as rd


def _package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def files() -> list[tuple[Path, dict]]:
    """The files, each with the options ``rd.load`` needs for it."""
    out, options = [], {}
    dmc = _package_dir("dm_control")
    if dmc is not None:
        walkers = dmc / "locomotion" / "walkers" / "assets"
        out += [dmc / "suite" / "dog.xml", walkers / "fruitfly_v2" / "fruitfly.xml",
                walkers / "build_fruitfly" / "assets" / "drosophila_fused.xml",
                dmc / "suite" / "humanoid_CMU.xml", walkers / "dog_v2" / "dog.xml"]
        options[walkers / "dog_v2" / "dog.xml"] = {"asset_root": dmc}
    gym = _package_dir("gymnasium")
    if gym is not None:
        out.append(gym / "envs" / "mujoco" / "assets" / "humanoid.xml")
    return [(p, options.get(p, {})) for p in out if p.is_file()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    import mujoco

    print(f"{'':<28} {'':>4} {'first load, ms':>26} {'':>6} {'again (median), ms':>26}")
    print(f"{'file':<28} {'dof':>4} {'robodyn':>12} {'MuJoCo':>12} {'ratio':>6} "
          f"{'robodyn':>12} {'MuJoCo':>12} {'ratio':>6}")
    for path, options in files():
        start = time.perf_counter()
        mujoco.MjModel.from_xml_path(str(path))
        theirs_first = time.perf_counter() - start
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rd.PhysicalConsistencyWarning)
            start = time.perf_counter()
            dof = rd.load(str(path), **options).dof
            ours_first = time.perf_counter() - start
            ours = median_time(lambda p=path, o=options: rd.load(str(p), **o), args.repeats)
        theirs = median_time(lambda p=path: mujoco.MjModel.from_xml_path(str(p)), args.repeats)
        print(f"{path.parent.name + '/' + path.name:<28} {dof:>4} {ours_first * 1e3:>12.1f} "
              f"{theirs_first * 1e3:>12.1f} {ours_first / theirs_first:>6.2f} "
              f"{ours * 1e3:>12.1f} {theirs * 1e3:>12.1f} {ours / theirs:>6.2f}")


if __name__ == "__main__":
    main()
