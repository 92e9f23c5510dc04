"""Volumes on the node stand-in: every file a pod writes stays under the stand-in's own directory.

Containers here are host processes, with no mount namespace of their own, so a volume cannot be
mounted at its ``mountPath``. Instead each volume is a directory under the stand-in's directory
(``emptyDir``, ``secret``, ``configMap``, ``downwardAPI`` and ``projected`` in the pod's own
directory; a ``persistentVolumeClaim`` in ``DIR/node/volumes/NAMESPACE/CLAIM``, which outlives the
pod as a bound volume does), and a container sees it through its own words: wherever a mount path
appears as a path in its command, args, environment values or ``workingDir``
(``sqlite:////var/lib/proctor/collector.db``, ``--cert-dir=/etc/proctor/tls``), the stand-in puts
the volume's directory instead. ``TMPDIR`` is the container's own temporary directory (its ``/tmp``
volume when it mounts one). A ``hostPath`` volume, or a kind the stand-in does not know, is refused
as a failed mount: it would write to this machine outside the stand-in's directory.

What this does not do: a path the program builds itself without reading it from its command line
or environment is not translated (the program writes where it says, as any host process would)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

#: Reads a ConfigMap's or a Secret's data (``kind``, name, optional): None for an optional missing
#: one; raises for a missing one the pod needs (the stand-in's ``MissingRef``).
Reader = Callable[[str, str, bool], Mapping[str, str] | None]


class VolumeRefused(Exception):
    """A volume the stand-in does not mount (a ``hostPath``, or a kind it does not know)."""


@dataclass(frozen=True)
class Mounts:
    """One container's mount paths, each with the host directory (or file) standing in for it."""

    paths: tuple[tuple[str, Path], ...] = ()
    tmp: Path | None = None

    def translate(self, text: str) -> str:
        """``text`` with each mount path, where it appears as a path, replaced by its directory (in
        one pass: a directory put in is never read again as another mount's path)."""
        if not self.paths:
            return text
        hosts = {mount.rstrip("/") or "/": str(host) for mount, host in self.paths}
        names = "|".join(re.escape(m) for m in sorted(hosts, key=len, reverse=True))
        pattern = rf"(?<![\w.-])({names})(?=/|$|[^\w.-])"
        return re.sub(pattern, lambda m: hosts[m.group(1)], text)

    def environment(self, env: Mapping[str, str], spec: Mapping[str, Any], own_tmp: Path) -> dict[str, str]:
        """``env`` with the literal values the container ``spec`` gives translated (never what the
        stand-in itself put there: its kubeconfig, ``HOME``, ``PATH``, which are host paths already)."""
        literal = {str(e["name"]) for e in spec.get("env", []) or [] if "value" in e}
        out = {k: self.translate(v) if k in literal else v for k, v in env.items()}
        out["TMPDIR"] = str(self.tmp or own_tmp)
        return out


def _files(target: Path, data: Mapping[str, str], items: list[dict[str, Any]] | None) -> None:
    """Write ``data`` as files (only the keys ``items`` names, at their paths, when it names any)."""
    chosen = [(i["key"], i.get("path") or i["key"]) for i in items] if items else [(k, k) for k in data]
    for key, rel in chosen:
        if key not in data:
            continue
        path = (target / rel).resolve()
        if target.resolve() not in path.parents:
            raise VolumeRefused(f"item path {rel!r} leaves its volume")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(data[key])


def materialize(
    pod: Mapping[str, Any],
    pod_dir: Path,
    claims_dir: Path,
    read: Reader,
    field: Callable[[str], str],
    token: Callable[[str], str | None],
    *,
    dirs: Mapping[str, Path] | None = None,
) -> dict[str, Path]:
    """The pod's volumes as directories, by name (``token``: the token the stand-in issued for a
    projected volume of that name, if any; ``dirs``: volumes already made elsewhere, such as the
    directory a projected token for another audience was written to)."""
    ns = str(pod["metadata"]["namespace"])
    out: dict[str, Path] = {}
    for volume in pod["spec"].get("volumes", []) or []:
        name = str(volume["name"])
        target = (dirs or {}).get(name) or pod_dir / "volumes" / name
        if "hostPath" in volume:
            raise VolumeRefused(
                f'volume "{name}": hostPath is not mounted on the node stand-in (it would write to this '
                "machine outside the stand-in's directory); use an emptyDir or a persistentVolumeClaim"
            )
        if (claim := volume.get("persistentVolumeClaim")) is not None:
            target = claims_dir / ns / str(claim["claimName"])
        elif (src := volume.get("secret")) is not None:
            data = read("Secret", str(src["secretName"]), bool(src.get("optional")))
            _files(target, data or {}, src.get("items"))
        elif (src := volume.get("configMap")) is not None:
            data = read("ConfigMap", str(src["name"]), bool(src.get("optional")))
            _files(target, data or {}, src.get("items"))
        elif (src := volume.get("downwardAPI")) is not None:
            _downward(target, src.get("items") or [], field)
        elif (src := volume.get("projected")) is not None:
            for source in src.get("sources") or []:
                if (s := source.get("secret")) is not None:
                    data = read("Secret", str(s["name"]), bool(s.get("optional")))
                    _files(target, data or {}, s.get("items"))
                elif (s := source.get("configMap")) is not None:
                    data = read("ConfigMap", str(s["name"]), bool(s.get("optional")))
                    _files(target, data or {}, s.get("items"))
                elif (s := source.get("downwardAPI")) is not None:
                    _downward(target, s.get("items") or [], field)
                elif (s := source.get("serviceAccountToken")) is not None and (t := token(name)):
                    _files(target, {"token": t}, [{"key": "token", "path": s.get("path") or "token"}])
        elif "emptyDir" not in volume:
            kind = next((k for k in volume if k != "name"), "?")
            raise VolumeRefused(f'volume "{name}": {kind} volumes are not mounted on the node stand-in')
        target.mkdir(parents=True, exist_ok=True)
        out[name] = target
    return out


def _downward(target: Path, items: list[dict[str, Any]], field: Callable[[str], str]) -> None:
    values = {str(i["path"]): field(str(i["fieldRef"]["fieldPath"])) for i in items if i.get("fieldRef")}
    _files(target, values, None)


def container_mounts(container: Mapping[str, Any], volumes: Mapping[str, Path]) -> Mounts:
    """Where each of ``container``'s mounts is on the host (a ``subPath`` within its volume)."""
    paths: list[tuple[str, Path]] = []
    for m in container.get("volumeMounts", []) or []:
        host = volumes.get(str(m.get("name")))
        if host is None:
            continue
        sub = str(m.get("subPath") or "")
        if sub:
            host = host / sub
            if not host.exists():
                host.mkdir(parents=True, exist_ok=True)
        paths.append((str(m["mountPath"]), host))
    paths.sort(key=lambda p: len(p[0]), reverse=True)
    tmp = next((h for mp, h in paths if mp.rstrip("/") == "/tmp"), None)
    return Mounts(tuple(paths), tmp)


def token_of(kubeconfig: Path) -> str | None:
    """The bearer token in a kubeconfig the stand-in wrote (for a projected token volume's file)."""
    try:
        doc = yaml.safe_load(kubeconfig.read_text())
        return str(doc["users"][0]["user"]["token"])
    except (OSError, KeyError, IndexError, TypeError, yaml.YAMLError):
        return None


__all__ = ["Mounts", "VolumeRefused", "container_mounts", "materialize", "token_of"]
