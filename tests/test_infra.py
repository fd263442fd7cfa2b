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


def test_dockerfile_installs_as_the_ray_user_in_a_folder_that_user_owns():
    """The Ray image runs as `ray`; `pip install .` writes build/ and *.egg-info
    into the working folder, which a plain WORKDIR makes root's."""
    user, workdir, owned = "ray", None, set()  # the Ray image's own user
    for line in open(os.path.join(INFRA, "Dockerfile")).read().splitlines():
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0] == "USER":
            user = words[1]
        elif words[0] == "WORKDIR":
            workdir = words[1]
        elif words[0] == "RUN" and "chown" in words:
            owner = words[words.index("chown") + 1]
            if owner.split(":")[0] == "ray":
                owned.update(w for w in words[words.index("chown") + 2:] if w.startswith("/"))
        elif words[0] == "RUN" and "pip" in words and "install" in words:
            assert user == "ray" and workdir in owned, (user, workdir, owned)
            return
    raise AssertionError("the Dockerfile installs no package")


def test_every_manifest_pulls_the_one_image_pushed_to_a_registry():
    _, version = pinned()
    found = images(load("k8s/raycluster.yaml")) + images(load("k8s/rayjob.yaml")) + [load("ray-cluster.yaml")["docker"]["image"]]
    (image,) = set(found)
    assert "/" in image  # a registry path: a node cannot pull a bare local tag
    assert f"-t {image} ." in open(os.path.join(INFRA, "Dockerfile")).read()
    readme = open(os.path.join(INFRA, "README.md")).read()
    assert f"docker push {image}" in readme and image.rsplit("/", 1)[0] in readme


def test_kuberay_head_declares_the_dashboard_port_the_readme_forwards():
    readme = open(os.path.join(INFRA, "README.md")).read()
    assert "port-forward svc/polsim-head-svc 8265:8265" in readme
    (head,) = load("k8s/raycluster.yaml")["spec"]["headGroupSpec"]["template"]["spec"]["containers"]
    assert 8265 in [p["containerPort"] for p in head["ports"]]


def test_ray_up_workers_get_an_instance_profile_and_the_commands_agree():
    config = load("ray-cluster.yaml")
    for name, node in config["available_node_types"].items():
        if name != config["head_node_type"]:
            assert node["node_config"]["IamInstanceProfile"]["Arn"].startswith("arn:aws:iam::")
    comment = open(os.path.join(INFRA, "ray-cluster.yaml")).read()
    readme = open(os.path.join(INFRA, "README.md")).read()
    assert "ray exec infra/ray-cluster.yaml" in comment and "ray exec infra/ray-cluster.yaml" in readme
    assert "ray submit" not in comment + readme
