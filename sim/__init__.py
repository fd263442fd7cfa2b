"""The magnetic core: numba rigid-body physics of magnetic discs. Knows no game rules."""
