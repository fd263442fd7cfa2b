"""The numba cores' inner functions run without numba's reference counting
(sim.jit: it was 41 % of a standard Polarity game's CPU and 55 % of Polar's core)."""

import importlib

import numpy as np
import pytest
from numba.core.errors import TypingError
from numba.core.registry import CPUDispatcher

from sim.jit import kernel

CORE_MODULES = ("sim.integrate", "sim.contact_forces", "sim.sleeping", "sim.forces", "sim.contacts",
                "sim.compound", "sim.magnetics", "sim.magnetics_fields", "sim.magnetics_table", "sim.holding",
                "sim.bodies", "sim.elliptic", "sim.balance", "sim.fit", "sim.disturb",
                "rules.polar.core", "rules.polar.engine", "rules.polar.legal_count", "rules.polar.mcts",
                "rules.polar.policies", "rules.polar.rng")
# (module, function): they allocate or return a slice, so they keep it; none
# of them runs per pair, per contact point or per move
NEEDS_REFERENCE_COUNTING = {("sim.integrate", "run"), ("sim.forces", "magnetic_all"),
                            ("sim.forces", "refresh_refs"), ("sim.balance", "new_scan"),
                            ("sim.balance", "turned_balance"), ("rules.polar.core", "neighbour_table"),
                            ("rules.polar.core", "new_state"), ("rules.polar.engine", "play_games"),
                            ("rules.polar.legal_count", "new_tracker"), ("rules.polar.mcts", "new_tree"),
                            ("rules.polar.rng", "stream_seeds")}


def _compiled_functions():
    for name in CORE_MODULES:
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and value.py_func.__module__ == name:
                yield name, attr, value


def test_core_functions_are_kernels_without_reference_counting():
    counted = {(module, attr) for module, attr, f in _compiled_functions() if f.targetoptions.get("_nrt", True)}
    assert counted - NEEDS_REFERENCE_COUNTING == set(), "use sim.jit.kernel"
    assert NEEDS_REFERENCE_COUNTING - counted == set(), "gone or a kernel now: update the list"


def test_kernel_refuses_to_allocate():
    @kernel
    def fresh_copy(a):
        b = np.zeros(3)
        b[0] = a[0]
        return b[0]

    with pytest.raises(TypingError, match="Only accept returning of array passed into the function"):
        fresh_copy(np.ones(3))
