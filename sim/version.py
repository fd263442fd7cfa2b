"""The physics version: bump on any change that can change an outcome.

The golden suite (sim/golden/*.json) records the version it was made with;
tests/test_physics_golden.py fails when the recorded version differs, so a
regeneration (``python -m sim.golden --regenerate``) and a bump go together.
"""

PHYSICS_VERSION = "0.24.0"
