"""A lean embedded Ray: the local head without the daemons a one-command run
never uses.

``ray.init(address="local")`` starts, beside the GCS and the raylet, three
Python daemons: the autoscaler monitor (nothing to scale on one machine),
the log monitor (it streams worker logs to the driver, which
``log_to_driver=False`` turns off) and the API server (``dashboard.py``; with
``include_dashboard=False`` it still serves the job and state APIs, which
polsim never calls). Each imports Ray's Python on start: about 1 CPU second
apiece, which on a 2-core machine lengthens the start and then competes
with the first shards' games (measured, 9 alternated starts: the Ray
processes' CPU 7.6-7.9 s with the daemons, 4.6-5.0 s without; ``ray.init``
4.4-4.6 s against 2.2-4.2 s). Clusters (``--address``) are untouched.

``ray.init`` builds its ``RayParams`` and ``Node`` itself and offers no
switch for these, so ``lean_local_head`` adjusts both for the length of one
``ray.init`` call through Ray's private modules (the Ray version is pinned
in ``pyproject.toml``). If a later Ray moved them, nothing is changed and
the start is Ray's default one.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


def _private_parts():
    """Ray's ``RayParams`` class and ``Node`` class, or None if Ray moved them."""
    try:
        from ray._private import node, parameter
    except ImportError:
        return None
    params, node_cls = getattr(parameter, "RayParams", None), getattr(node, "Node", None)
    if params is None or node_cls is None or not hasattr(node_cls, "start_api_server"):
        return None
    return parameter, node_cls


@contextmanager
def lean_local_head() -> Iterator[bool]:
    """Within the block, a ``ray.init`` that starts a local head starts no
    autoscaler monitor, log monitor or API server. Yields whether it could."""
    parts = _private_parts()
    if parts is None:
        yield False
        return
    parameter, node_cls = parts
    original_params, original_api = parameter.RayParams, node_cls.start_api_server

    class LeanParams(original_params):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.no_monitor = True
            self.include_log_monitor = False

    def no_api_server(node, *, include_dashboard=None, raise_on_failure=False):
        node._webui_url = None

    parameter.RayParams, node_cls.start_api_server = LeanParams, no_api_server
    try:
        yield True
    finally:
        parameter.RayParams, node_cls.start_api_server = original_params, original_api
