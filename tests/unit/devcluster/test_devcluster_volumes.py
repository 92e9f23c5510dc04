"""The node stand-in's volumes: directories under its own directory, named to each container
through its own command, args and environment, so nothing a pod writes lands elsewhere on the host."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from proctor.devcluster.volumes import Mounts, VolumeRefused, container_mounts, materialize


def _pod(*volumes: dict[str, Any]) -> dict[str, Any]:
    return {"metadata": {"namespace": "ns", "name": "p"}, "spec": {"volumes": list(volumes)}}


DATA = {("Secret", "tls"): {"tls.crt": "CERT", "tls.key": "KEY"}, ("ConfigMap", "cfg"): {"a": "1", "b": "2"}}


def _read(kind: str, name: str, optional: bool) -> Mapping[str, str] | None:
    if (kind, name) in DATA:
        return DATA[kind, name]
    if optional:
        return None
    raise LookupError(f'{kind.lower()} "{name}" not found')


def _materialize(tmp_path: Path, *volumes: dict[str, Any]) -> dict[str, Path]:
    return materialize(
        _pod(*volumes), tmp_path / "pod", tmp_path / "claims", _read, lambda f: f"<{f}>", lambda n: "TOKEN"
    )


def test_each_kind_becomes_a_directory_under_the_stand_ins_own(tmp_path: Path) -> None:
    got = _materialize(
        tmp_path,
        {"name": "data", "persistentVolumeClaim": {"claimName": "db"}},
        {"name": "scratch", "emptyDir": {}},
        {"name": "certs", "secret": {"secretName": "tls"}},
        {"name": "conf", "configMap": {"name": "cfg", "items": [{"key": "b", "path": "sub/b.txt"}]}},
        {
            "name": "info",
            "downwardAPI": {"items": [{"path": "ns", "fieldRef": {"fieldPath": "metadata.namespace"}}]},
        },
        {
            "name": "token",
            "projected": {
                "sources": [
                    {"serviceAccountToken": {"audience": "x", "path": "t"}},
                    {"configMap": {"name": "cfg"}},
                ]
            },
        },
    )
    assert got["data"] == tmp_path / "claims" / "ns" / "db"  # a claim outlives the pod
    assert all(tmp_path in p.parents for p in got.values())
    assert (got["certs"] / "tls.key").read_text() == "KEY"
    assert [p.name for p in got["conf"].rglob("*") if p.is_file()] == ["b.txt"]  # only the items named
    assert (got["info"] / "ns").read_text() == "<metadata.namespace>"
    assert (got["token"] / "t").read_text() == "TOKEN" and (got["token"] / "a").read_text() == "1"


def test_a_host_path_or_an_unknown_kind_is_refused_not_written_through(tmp_path: Path) -> None:
    with pytest.raises(VolumeRefused, match="hostPath is not mounted"):
        _materialize(tmp_path, {"name": "h", "hostPath": {"path": "/var/lib/x"}})
    with pytest.raises(VolumeRefused, match="nfs volumes are not mounted"):
        _materialize(tmp_path, {"name": "n", "nfs": {"server": "s", "path": "/"}})
    with pytest.raises(VolumeRefused, match="leaves its volume"):
        _materialize(
            tmp_path, {"name": "c", "configMap": {"name": "cfg", "items": [{"key": "a", "path": "../../a"}]}}
        )
    assert not (tmp_path / "a").exists()


def test_a_missing_secret_fails_the_mount_and_an_optional_one_is_empty(tmp_path: Path) -> None:
    with pytest.raises(LookupError, match='secret "nope" not found'):
        _materialize(tmp_path, {"name": "s", "secret": {"secretName": "nope"}})
    got = _materialize(tmp_path, {"name": "s", "secret": {"secretName": "nope", "optional": True}})
    assert list(got["s"].iterdir()) == []


def test_mount_paths_are_translated_where_they_are_paths(tmp_path: Path) -> None:
    data, tls, tmp = tmp_path / "data", tmp_path / "tls", tmp_path / "tmp"
    container = {
        "volumeMounts": [
            {"name": "d", "mountPath": "/var/lib/proctor"},
            {"name": "t", "mountPath": "/etc/proctor/tls"},
            {"name": "x", "mountPath": "/tmp"},
            {"name": "gone", "mountPath": "/elsewhere"},  # no such volume: left alone
        ]
    }
    m = container_mounts(container, {"d": data, "t": tls, "x": tmp})
    assert m.translate("sqlite:////var/lib/proctor/collector.db") == f"sqlite:///{data}/collector.db"
    assert m.translate("--cert-dir=/etc/proctor/tls") == f"--cert-dir={tls}"
    assert m.translate("/var/lib/proctor") == str(data)
    # a longer name, another directory that ends the same way, a URL path: not this mount
    assert m.translate("/var/lib/proctorx/a") == "/var/lib/proctorx/a"
    assert m.translate("/opt/var/lib/proctor") == "/opt/var/lib/proctor"
    assert m.translate("/tmpfile") == "/tmpfile"
    spec = {"env": [{"name": "DB", "value": "/var/lib/proctor/db"}, {"name": "N", "value": "2"}]}
    # what the stand-in itself puts in the environment is a host path already: left alone
    own = {"DB": "/var/lib/proctor/db", "N": "2", "KUBECONFIG": "/tmp/x/kubeconfig"}
    env = m.environment(own, spec, tmp_path / "own")
    assert env == {"DB": f"{data}/db", "N": "2", "KUBECONFIG": "/tmp/x/kubeconfig", "TMPDIR": str(tmp)}
    assert Mounts().environment({}, {}, tmp_path / "own") == {"TMPDIR": str(tmp_path / "own")}


def test_a_sub_path_is_a_directory_inside_its_volume(tmp_path: Path) -> None:
    m = container_mounts(
        {"volumeMounts": [{"name": "d", "mountPath": "/data", "subPath": "a/b"}]}, {"d": tmp_path}
    )
    assert m.translate("/data/x") == f"{tmp_path}/a/b/x" and (tmp_path / "a" / "b").is_dir()
