"""The infra manifests parse, and their versions agree with pyproject.toml."""

from __future__ import annotations

import os
import re
import tomllib

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INFRA = os.path.join(ROOT, "infra")


def pinned() -> tuple[str, str]:
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f)["project"]
    ray = next(d.split("==")[1] for d in project["dependencies"] if d.startswith("ray=="))
    return ray, project["version"]


def load(rel: str) -> dict:
    with open(os.path.join(INFRA, rel)) as f:
        return yaml.safe_load(f)


def images(node) -> list[str]:
    if isinstance(node, dict):
        found = [node["image"]] if isinstance(node.get("image"), str) else []
        return found + [i for v in node.values() for i in images(v)]
    if isinstance(node, list):
        return [i for v in node for i in images(v)]
    return []


def test_dockerfile_builds_from_the_pinned_ray_image():
    ray, _ = pinned()
    text = open(os.path.join(INFRA, "Dockerfile")).read()
    base = re.search(r"^FROM\s+(\S+)", text, re.M).group(1)
    assert base.startswith(f"rayproject/ray:{ray}-")


def test_kuberay_manifests_use_the_pinned_ray_and_polsim_versions():
    ray, version = pinned()
    cluster = load("k8s/raycluster.yaml")
    job = load("k8s/rayjob.yaml")
    assert cluster["kind"] == "RayCluster" and job["kind"] == "RayJob"
    assert cluster["spec"]["rayVersion"] == ray
    assert job["spec"]["rayClusterSpec"]["rayVersion"] == ray
    for doc in (cluster, job):
        assert images(doc) and all(i.endswith(f"polsim:{version}") for i in images(doc))
    assert "polsim simulate" in job["spec"]["entrypoint"] and "--resume" in job["spec"]["entrypoint"]


def test_ray_up_config_uses_the_polsim_image():
    _, version = pinned()
    config = load("ray-cluster.yaml")
    assert config["docker"]["image"].endswith(f"polsim:{version}")
    assert config["head_node_type"] in config["available_node_types"]
