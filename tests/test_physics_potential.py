"""The source magnet's scalar potential psi (B = -grad psi outside it), which
the pair kernel's blends need for their energies (sim.magnetics_fields,
sim.magnetics_table, sim.magnetics: Conservation)."""

import math

import numpy as np
import pytest
from scipy.integrate import quad

from sim.magnetics_fields import (_disc_potential, cylinder_field_local, cylinder_potential_local,
                                  multipole_field_at, multipole_moments, multipole_potential_at)
from sim.magnetics_table import field_local, field_table, potential_at

A, B, BR = 0.0125, 0.002, 1.3
POINTS = [(0.003, 0.004), (0.011, 0.0025), (0.0135, 0.001), (0.02, 0.01), (0.0126, -0.003),
          (0.0, 0.005), (0.0124, 0.00201), (0.05, 0.02), (0.03, -0.045)]


def _disc_by_quadrature(rho, zeta, a):
    """∫ dA'/|r - r'| over the disc, the azimuth integral done first (numerically)."""
    def ring(r):
        return r * quad(lambda p: 1.0 / math.sqrt(rho * rho + r * r - 2 * rho * r * math.cos(p) + zeta * zeta),
                        0.0, 2 * math.pi, limit=200, epsabs=1e-13)[0]
    return quad(ring, 0.0, a, limit=200, epsabs=1e-12, points=[rho] if rho < a else None)[0]


@pytest.mark.parametrize("rho, zeta", [(0.3, 0.2), (0.8, 0.05), (1.3, 0.4), (2.0, 1.0), (0.99, 0.3),
                                       (1.01, 0.3), (0.5, -2.0), (0.0, 0.7), (1.0, 0.25)])
def test_charged_disc_potential_is_the_direct_integral(rho, zeta):
    assert _disc_potential(rho, zeta, 1.0) == pytest.approx(_disc_by_quadrature(rho, zeta, 1.0), rel=1e-9)


@pytest.mark.parametrize("rho, z", POINTS)
def test_minus_the_potential_gradient_is_the_field_outside_the_magnet(rho, z):
    h = 1e-7
    psi = lambda r, zz: cylinder_potential_local(r, zz, A, B, BR)  # noqa: E731
    b_rho = -(psi(rho + h, z) - psi(rho - h, z)) / (2 * h) if rho > h else 0.0
    b_z = -(psi(rho, z + h) - psi(rho, z - h)) / (2 * h)
    exact = cylinder_field_local(rho, z, A, B, BR)
    scale = math.hypot(*exact)
    assert abs(b_rho - exact[0]) < 1e-6 * scale and abs(b_z - exact[1]) < 1e-6 * scale


def test_multipole_potential_is_the_multipole_field_s_and_matches_the_magnet_far_out():
    q = multipole_moments(A, B, BR)
    c, n, h = (0.0, 0.0, 0.0), (0.0, 0.0, 1.0), 1e-7
    for p in [(0.05, 0.01, 0.03), (0.0, 0.0, 0.06), (-0.08, 0.02, -0.01)]:
        x = np.array(p)
        grad = [-(multipole_potential_at(tuple(x + h * e), c, n, *q)
                  - multipole_potential_at(tuple(x - h * e), c, n, *q)) / (2 * h) for e in np.eye(3)]
        field = multipole_field_at(p, c, n, *q)
        assert np.allclose(grad, field, rtol=0, atol=1e-7 * np.linalg.norm(field))
        exact = cylinder_potential_local(math.hypot(p[0], p[1]), p[2], A, B, BR)
        assert multipole_potential_at(p, c, n, *q) == pytest.approx(exact, rel=1e-4)


def test_table_potential_is_the_closed_form_s_and_odd_in_z():
    table = field_table(A, B)
    c, n = (0.0, 0.0, 0.0), (0.0, 0.0, 1.0)
    for rho, z in POINTS:
        exact = cylinder_potential_local(rho, z, A, B, BR)
        got = potential_at((rho, 0.0, z), c, n, A, B, BR, table)
        assert got == pytest.approx(exact, rel=1e-4, abs=1e-7 * BR * A)
        assert potential_at((rho, 0.0, -z), c, n, A, B, BR, table) == -got
    # the field read from the same table is unchanged by the potential beside it
    assert field_local(0.02, 0.01, A, B, BR, table) == pytest.approx(cylinder_field_local(0.02, 0.01, A, B, BR),
                                                                     rel=2e-3)
