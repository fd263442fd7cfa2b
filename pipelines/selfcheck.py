"""Does this machine play the reference games bit for bit?

Games are the same on every machine (``sim.detmath``; README, "Same seed,
same result"), as long as the code and the pinned packages are. ``fingerprint``
plays three leaner placements and one short Polarity game in this process and
digests every pose, and every turn and game column of what was played (not
the version strings, run id, labels and rule columns);
``REFERENCE`` is what it printed on the machine that recorded it; ``capture_fingerprint``
digests two captures that disturb sleeping leaners, which that game never plays
(``CAPTURE_REFERENCE``, one print for each physics since 0.22.0). A cluster
node, a container image or a laptop that prints the same will reproduce any
run. The suite checks it on every machine that runs it
(``tests/test_detmath.py``); re-record when the physics version changes:
``.venv/bin/python -m pipelines.selfcheck``.
"""

from __future__ import annotations

import glob
import hashlib
import tempfile
from dataclasses import dataclass
from functools import lru_cache

# recorded on an x86-64 Intel Xeon VM (KVM), Debian glibc 2.36, 2026-12-06 (0.22.0 and 0.21.0), 2026-12-05 (0.20.0 and
# 0.19.0), 2026-12-04 (0.18.0, 0.17.0, 0.16.0, 0.15.0 and 0.14.0; 0.13.0, which 0.13.1 plays the same, and 0.12.1
# on the same machine on 2026-12-03); the older digests below were recorded on an AMD EPYC and still match here (sim.detmath)
REFERENCE = {"physics_version": "0.24.0",
             "fingerprint": "c440ac30b065b9bcaec5bf98e43bb4eb359bd6c0886f0eae353b251163b20931"}
# earlier physics, which the knobs that restore it must print too (each with
# wake_field = False, all before 0.23 also with
# wake_vacated = False, all before 0.22 also with
# hold_bottom_face = False, all before 0.21 also with
# compound_labels = False, all before 0.20 also with
# lift_clinging, out_entirely and red_stays = False, all before 0.19 also with
# flat_sleep_time = 0.08, all before 0.18 also with
# fitted_lead = False, all before 0.17 also with converged_gap = False, all
# before 0.16 with reuse_momentum = False, all before 0.15 with blend_work =
# False, all before 0.14 with frame_turn = False, all before 0.13 with
# contact_skirt = 0, all before 0.12 with far_dipole = 0 and all before
# 0.11.0 with reuse_lead = 0): 0.23.0 with wake_field = False (the same print
# as 0.24.0's: these games capture no group whose field holds a sleeping leaner;
# CAPTURE_REFERENCE tells them apart); 0.22.0 with wake_vacated = False (the same
# print as 0.23.0's: these games capture no group a sleeping leaner rests on);
# 0.21.0 with hold_bottom_face = False;
# 0.20.0 with compound_labels = False;
# 0.19.0 with lift_clinging, out_entirely and red_stays = False;
# 0.18.0 with flat_sleep_time = 0.08;
# 0.17.0 with fitted_lead = False; 0.16.0 with
# converged_gap = False; 0.15.0 with reuse_momentum = False; 0.14.0 with
# blend_work = False; 0.13.1 with frame_turn = False; 0.12.1 with
# contact_skirt = 0; 0.11.0 with far_dipole = 0; 0.10.0 with reuse_lead = 0;
# 0.9.0 (and 0.8.0, which changed only captures, not played here) with
# compound = False; 0.6.0 (no contact sub-steps; commit 9d4ec2a with these
# columns) with contact_substeps = 1 and tower_hold = False; 0.7.0 with
# tower_hold = False (each with compound = False)
REFERENCE_0_23_0 = "c440ac30b065b9bcaec5bf98e43bb4eb359bd6c0886f0eae353b251163b20931"
REFERENCE_0_22_0 = "c440ac30b065b9bcaec5bf98e43bb4eb359bd6c0886f0eae353b251163b20931"
REFERENCE_0_21_0 = "a47f94f79ea0cda09d6fd71bda70e106a99d4c7eed01ed5f2a947bf9dfdb0aaa"
REFERENCE_0_20_0 = "a05ccb641b225d2a87dbf90b6ac58f2dbf991e2eee572968f032afbc628d3cd7"
REFERENCE_0_19_0 = "83c50c96c6b62cc2a1e4b4e0a180e9315dc82bce5f19d731d4fa9fe26988484b"
REFERENCE_0_18_0 = "9f74576c0b3f59d4e801648c99212340a3bb04cc7422708b02b0cd0fdacf19bc"
REFERENCE_0_17_0 = "98573b23ac9875d76b3e872abc50341a67809e2d22ffb1cb40e196e7f0409549"
REFERENCE_0_16_0 = "dcdde78178e0067fb197b4da0bd53ae4ab083f93b234930e1291ebb63af949cb"
REFERENCE_0_15_0 = "16303a1219cb8dde49fccc78ea3c4df14fc9d26f84480519f58a6480ccea515c"
REFERENCE_0_14_0 = "fe67b20e47e6d6d63e9700f776f2cf95480fc8515e51907e7f383370676265de"
REFERENCE_0_13_1 = "4424dbc319b5f29f36a3e5cc110d5a5eff329258aa4a312819815cfd0343c47d"
REFERENCE_0_12_1 = "32f145a9a223964253dda45031776a7c20cad1511d8b6df52d70b0291a1db3a7"
REFERENCE_0_11_0 = "907838532b80a802ab121034d96feeff122e48cf2333695648641a18be8a3b07"
REFERENCE_0_10_0 = "b447c85e7a75cfeb79b6c09023233865ca2b11f458f7e072caf474505d49c80d"
REFERENCE_0_9_0 = "76b326e94a8315911e05dc3ab297fbf33f417b36a929ced3efde625d728acfb3"
REFERENCE_SINGLE_STEPS = "dd1f8de89f48fab5850838db1ba1efc3d5021d6949224a8508162d1dadeb0627"
REFERENCE_0_7_0 = "b5550160dd1286315b9167debe5973b479a077c2fc59a4f03350b11c7ea691e1"
# Captures that disturb sleeping leaners, which the game above never plays: the golden scenes
# capture_under_a_leaner (physics 0.23.0's wake_vacated) and capture_beyond_a_leaner (0.24.0's
# wake_field), every body's final state. Each reference was printed by its own physics's code
# (0.23.0 at commit c4d971c, 0.22.0 at d57e0c6's parent, the scenes rebuilt from the public API),
# on the machine of the 0.22.0 reference above, 2026-12-07.
CAPTURE_REFERENCE = {"0.24.0": "48b55dee868467f979ee40e6d118966396585cfc8af080296f256b03a3028ff2",
                     "0.23.0": "8b8eaba898c2738241aa523fa1ae01dc0c79763e767ced82a430d62bd79197e2",
                     "0.22.0": "adc8340c5a6920489c30beb5269bfcc1a5bec1d985e42fa98a555343d2586423"}
CAPTURE_SCENES = ("capture_under_a_leaner", "capture_beyond_a_leaner")
# what names the run rather than what was played (a run with contact_substeps
# = 1 plays 0.6.0's games under another cell label, run id and rule column)
IDENTITY_COLUMNS = {"package_version", "physics_version", "run_id", "cell_label", "variant_hash"}


@lru_cache(maxsize=4)
def fingerprint(**physics) -> str:
    """The digest; ``physics`` overrides the core's parameters that the rules
    also carry (``contact_substeps``, ``tower_hold``, ``compound``, ``reuse_lead``, ``far_dipole``,
    ``contact_skirt``, ``frame_turn``, ``blend_work``, ``reuse_momentum``, ``converged_gap``, ``fitted_lead``,
    ``flat_sleep_time``, ``lift_clinging``, ``out_entirely``, ``red_stays``, ``compound_labels``,
    ``hold_bottom_face``, ``wake_vacated``, ``wake_field``: see the references)."""
    import numpy as np
    import pyarrow.parquet as pq

    from pipelines.runner import run_experiment
    from pipelines.spec import Cell, Experiment
    from sim.api import PhysicsParams, World, nominal_intent, place_leaner

    digest = hashlib.sha256()
    overrides = dict(physics)
    world = World.new(PhysicsParams(**overrides))
    hosts = [world.add_flat(0.08 * k - 0.08, 0.02 * (k % 2), 1) for k in range(3)]
    for k, host in enumerate(hosts):
        place_leaner(world, nominal_intent(world, host, 0.7 + 2.0 * k))
    digest.update(np.ascontiguousarray(world.pos).tobytes() + np.ascontiguousarray(world.quat).tobytes())
    # the game keeps polsim 0.22.0's 15-mm edge gap (R3, ``edge_gap_mm``) and seeding 1: every reference,
    # recorded before 0.23.0 made the gap 0 and 0.31.0 the seeding 2, names the same game
    exp = Experiment(game="polarity", variant="standard", seed=5, games=1, shard_size=1, seeding=1,
                     cells=(Cell(matchup=("cautious", "random"), overrides={"stack_size": 6, "foundations": 3, "edge_gap_mm": 15, **overrides}),))
    with tempfile.TemporaryDirectory() as out:
        run_experiment(exp, out, workers=0)
        for table in ("games", "turns"):
            t = pq.read_table(glob.glob(f"{out}/*/{table}/*.parquet")[0])
            for name in sorted(n for n in set(t.column_names) - IDENTITY_COLUMNS if not n.startswith("rule_")):
                digest.update(name.encode() + repr(t[name].to_pylist()).encode())
    return digest.hexdigest()


@lru_cache(maxsize=4)
def capture_fingerprint(**physics) -> str:
    """The digest of ``CAPTURE_SCENES`` under ``physics`` overrides (``wake_vacated``, ``wake_field``)."""
    from sim import scenes
    from sim.api import PhysicsParams

    digest = hashlib.sha256()
    for name in CAPTURE_SCENES:
        ep = getattr(scenes, name)(PhysicsParams(**physics))
        digest.update(f"{name} {ep.status} {ep.steps}".encode())
        for b in ep.final:
            digest.update(repr((b.id, b.x, b.y, b.z, b.up, b.tilt, b.state.value, b.tower, b.leaning_on)).encode())
    return digest.hexdigest()


@dataclass(frozen=True)
class SelfCheck:
    physics_version: str
    fingerprint: str
    reference: dict
    capture: str = ""  # capture_fingerprint(); compared with CAPTURE_REFERENCE when one is recorded

    @property
    def comparable(self) -> bool:
        return self.physics_version == self.reference["physics_version"]

    @property
    def capture_matches(self) -> bool:
        expected = CAPTURE_REFERENCE.get(self.physics_version)
        return not self.capture or expected is None or self.capture == expected

    @property
    def matches(self) -> bool:
        return self.comparable and self.fingerprint == self.reference["fingerprint"] and self.capture_matches

    def message(self) -> str:
        if not self.comparable:
            return (f"the reference was recorded with physics {self.reference['physics_version']}, this code is "
                    f"{self.physics_version}: re-record it (python -m pipelines.selfcheck)")
        if self.matches:
            return (f"this machine plays the reference games of physics {self.physics_version} bit for bit "
                    f"(fingerprint {self.fingerprint[:16]})")
        if self.fingerprint == self.reference["fingerprint"]:
            seen, expected, what = self.capture, CAPTURE_REFERENCE[self.physics_version], "captures"
        else:
            seen, expected, what = self.fingerprint, self.reference["fingerprint"], "games"
        return (f"this machine plays other {what} than the reference (fingerprint {seen[:16]}, "
                f"reference {expected[:16]}): its runs will not reproduce others'; "
                "install this checkout's pinned package versions (pip install -e .)")


def check(reference: dict | None = None) -> SelfCheck:
    from sim.version import PHYSICS_VERSION

    return SelfCheck(PHYSICS_VERSION, fingerprint(), reference or REFERENCE, capture_fingerprint())


if __name__ == "__main__":
    print(fingerprint())
    print("captures:", capture_fingerprint())
