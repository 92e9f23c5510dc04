"""The node stand-in's helpers: image names as the kubelet pulls them, back-off, probe ports."""

from __future__ import annotations

import pytest

from proctor.devcluster.node import back_off, probe_port, pull_name


def test_untagged_images_are_named_with_latest_as_the_kubelet_pulls_them() -> None:
    assert pull_name("nginx") == "nginx:latest"
    assert pull_name("registry:5000/team/app") == "registry:5000/team/app:latest"
    assert pull_name("nginx:1.27") == "nginx:1.27"
    assert pull_name("nginx@sha256:ab") == "nginx@sha256:ab"


def test_back_off_doubles_to_its_limit() -> None:
    assert [back_off(n, (10, 300)) for n in (1, 2, 3, 5, 6, 20)] == [10, 20, 40, 160, 300, 300]


def test_a_probe_port_may_name_a_container_port() -> None:
    ports = [{"name": "metrics", "containerPort": 9090}, {"name": "http", "containerPort": 8080}]
    assert probe_port("http", ports) == 8080
    assert probe_port(8080, []) == 8080
    assert probe_port("8081", []) == 8081
    with pytest.raises(ValueError, match="no container port"):
        probe_port("grpc", ports)
