"""How far two call paths travel through Proctor's rooms, and how much raw dict reading is left.

    .venv/bin/python hack/callpaths.py [--modules] [--edges]

Issue 27 asks that the EvalRun path (its handler to its status write) and the live-run path
(ingestion to the stored scores) cross fewer modules and climb back up fewer layers after the
restructure, and that raw dict access below ``controllers/`` be counted before and after. This prints
the same figures each time so the two can be compared.

How the figures are made (a static estimate, the same each run; not a profiler):

- **Reference graph.** Every function and method of ``proctor`` is a node. A function refers to
  another when its body names it: a name imported from a ``proctor`` module or defined in its own
  module, ``module.name`` for an imported module, ``Class.name`` for a class imported or defined in
  its own module, ``self.name`` / ``cls.name`` in its own class, and
  ``anything.name`` for a method called ``name`` defined in a module the caller's module imports
  (directly or not: grimp, import-linter's own library, gives the import graph). A reference, not
  only a call, is an edge, because ``asyncio.to_thread(self.store.complete, ...)`` runs ``complete``.
- **chain**: every function that lies on some chain of references from the entry to the target
  (what leads to the write); **step**: every function the entry may run before the target ends the
  step (what the step does on the way). A path given as several segments (the live run crosses a
  queue twice) is their union.
- **Modules crossed**: the distinct modules those functions live in.
- **Layer climbs**: the path walked depth first in source order, control passing into a callee and
  back to its caller; each time control passes to a module on a higher layer of ``.importlinter``'s
  ``layers`` contract (a return from a lower room counts, so does a callback into a higher one),
  that is one climb. Fewer climbs: a path that goes down once instead of bouncing.
- **Raw dict reads** below ``controllers/`` (every room on a lower layer): subscripts with a string
  literal (``x["name"]``) read, not written, and ``x.get("name"...)`` calls, except on
  ``os.environ``, HTTP request/headers/query mappings and ``match_info`` (those are the edge itself).
"""

from __future__ import annotations

import argparse
import ast
import configparser
import itertools
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import grimp

REPO = Path(__file__).resolve().parents[1]
SOURCE = REPO / "operator"

#: (entry, target) segments, each ``module:qualname``.
PATHS: dict[str, list[tuple[str, str]]] = {
    "EvalRun (handler -> status write)": [
        ("proctor.controllers.runs:on_run_event", "proctor.reconcile.status:write_status"),
    ],
    "live run (ingestion -> stored scores)": [
        ("proctor.collector.app:traces", "proctor.collector.ingest:Writer.submit"),
        ("proctor.collector.ingest:Writer._run", "proctor.store._ingestion:Ingestion.ingest"),
        ("proctor.collector.worker:Worker._evaluate", "proctor.store._queue:WorkQueue.complete"),
    ],
}

#: Receivers whose ``["x"]`` / ``.get("x")`` reads the edge itself (environment, HTTP request), not a
#: model that should have been typed.
EDGE_RECEIVERS = {"environ", "headers", "query", "match_info", "request", "rel_url", "cookies"}


@dataclass
class Function:
    key: str  # module:qualname
    module: str
    cls: str | None
    node: ast.AST
    refs: list[str] = field(default_factory=list)


def module_files() -> dict[str, Path]:
    out = {}
    for path in sorted((SOURCE / "proctor").rglob("*.py")):
        parts = list(path.relative_to(SOURCE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def layers() -> list[list[str]]:
    """The rooms of ``.importlinter``'s ``layers`` contract, top first."""
    cfg = configparser.ConfigParser()
    cfg.read(REPO / ".importlinter")
    lines = [ln.strip() for ln in cfg["importlinter:contract:layers"]["layers"].splitlines() if ln.strip()]
    return [[room.strip() for room in ln.split("|")] for ln in lines]


def layer_of(module: str, table: list[list[str]]) -> int:
    for i, rooms in enumerate(table):
        if any(module == r or module.startswith(r + ".") for r in rooms):
            return i
    return -1  # proctor's own __init__ etc.: above every room


def _absolute(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join([*base, node.module] if node.module else base)


class Index:
    def __init__(self) -> None:
        self.files = module_files()
        self.graph = grimp.build_graph("proctor")
        self.functions: dict[str, Function] = {}
        self.by_name: dict[str, list[str]] = {}
        self.trees: dict[str, ast.Module] = {}
        self._raw: dict[str, tuple[dict[str, tuple[str, str]], dict[str, str]]] = {}
        for module, path in self.files.items():
            tree = ast.parse(path.read_text(), str(path))
            self.trees[module] = tree
            self._collect(module, tree)
        for module, tree in self.trees.items():
            self._refs(module, tree)

    def _collect(self, module: str, tree: ast.Module) -> None:
        def add(node: ast.AST, qual: str, cls: str | None) -> None:
            key = f"{module}:{qual}"
            self.functions[key] = Function(key, module, cls, node)
            self.by_name.setdefault(qual.rsplit(".", 1)[-1], []).append(key)

        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                add(node, node.name, None)
            elif isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                        add(item, f"{node.name}.{item.name}", node.name)

    def _imports(self, module: str, tree: ast.Module) -> tuple[dict[str, str], dict[str, str]]:
        """Names bound to proctor functions (name -> key) and to proctor modules (name -> module)."""
        raw, modules = self._raw_imports(module, tree)
        return {bound: self._resolve(*target) for bound, target in raw.items()}, modules

    def _raw_imports(
        self, module: str, tree: ast.Module
    ) -> tuple[dict[str, tuple[str, str]], dict[str, str]]:
        if module in self._raw:
            return self._raw[module]
        names: dict[str, tuple[str, str]] = {}
        modules: dict[str, str] = {}
        is_package = self.files[module].name == "__init__.py"
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                source = _absolute(module, node, is_package)
                if not source.startswith("proctor"):
                    continue
                for alias in node.names:
                    bound = alias.asname or alias.name
                    if f"{source}.{alias.name}" in self.files:
                        modules[bound] = f"{source}.{alias.name}"
                    else:
                        names[bound] = (source, alias.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("proctor") and alias.asname:
                        modules[alias.asname] = alias.name
        self._raw[module] = (names, modules)
        return names, modules

    def _resolve(self, module: str, name: str, depth: int = 0) -> str:
        """Follow re-exports (``from proctor.store import Store`` -> ``proctor.store._store``)."""
        key = f"{module}:{name}"
        if key in self.functions or depth > 5 or module not in self.trees:
            return key
        raw, _ = self._raw_imports(module, self.trees[module])
        if name in raw:
            return self._resolve(*raw[name], depth + 1)
        return key

    def _refs(self, module: str, tree: ast.Module) -> None:
        names, modules = self._imports(module, tree)
        upstream = self.graph.find_upstream_modules(module) | {module}
        for fn in [f for f in self.functions.values() if f.module == module]:
            for node in ast.walk(fn.node):
                target: list[str] = []
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                    if node.id in names:
                        target = [names[node.id]]
                    elif f"{module}:{node.id}" in self.functions:
                        target = [f"{module}:{node.id}"]
                elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                    base = node.value
                    if isinstance(base, ast.Name) and base.id in modules:
                        target = [self._resolve(modules[base.id], node.attr)]
                    elif isinstance(base, ast.Name) and base.id in {"self", "cls"} and fn.cls:
                        own = f"{module}:{fn.cls}.{node.attr}"
                        target = [own] if own in self.functions else self._methods(node.attr, upstream)
                    elif isinstance(base, ast.Name) and base.id in names:
                        target = [f"{names[base.id]}.{node.attr}"]
                    elif isinstance(base, ast.Name) and f"{module}:{base.id}.{node.attr}" in self.functions:
                        target = [f"{module}:{base.id}.{node.attr}"]  # a class of its own module
                    else:
                        target = self._methods(node.attr, upstream)
                fn.refs += [t for t in target if t in self.functions and t != fn.key]

    def _methods(self, attr: str, upstream: set[str]) -> list[str]:
        return [
            k for k in self.by_name.get(attr, []) if "." in k.split(":", 1)[1] and k.split(":")[0] in upstream
        ]

    def path(self, entry: str, target: str) -> set[str]:
        """Every function on some chain of references from entry to target."""
        for key in (entry, target):
            if key not in self.functions:
                raise SystemExit(f"callpaths: {key} is not a function of proctor (renamed? update PATHS)")
        reaches: dict[str, bool] = {}

        def reach(key: str, stack: set[str]) -> bool:
            if key == target:
                return True
            if key in reaches:
                return reaches[key]
            if key in stack:
                return False
            stack.add(key)
            hit = False
            for ref in self.functions[key].refs:
                hit = reach(ref, stack) or hit
            stack.discard(key)
            reaches[key] = hit
            return hit

        if not reach(entry, set()):
            raise SystemExit(f"callpaths: no chain of references from {entry} to {target}")
        return {k for k, v in reaches.items() if v} | {entry, target}

    def reach(self, entry: str, target: str) -> set[str]:
        """Every function the entry's step may run, the target included (not what the target calls:
        the step ends with it)."""
        seen = {entry}
        todo = [entry]
        while todo:
            key = todo.pop()
            if key == target:
                continue
            for ref in self.functions[key].refs:
                if ref not in seen:
                    seen.add(ref)
                    todo.append(ref)
        return seen

    def walk(self, entry: str, on_path: set[str]) -> list[tuple[str, str]]:
        """The modules control passes through, depth first in source order (returns included), each
        with the function control is in when it arrives there (``--edges`` names a climb by them)."""
        seen: set[str] = set()
        trail: list[tuple[str, str]] = []

        def visit(key: str) -> None:
            seen.add(key)
            here = (self.functions[key].module, key)
            trail.append(here)
            for ref in self.functions[key].refs:
                if ref in on_path and ref not in seen:
                    visit(ref)
                    trail.append(here)

        visit(entry)
        return [m for i, m in enumerate(trail) if i == 0 or trail[i - 1][0] != m[0]]


def dict_reads(index: Index, table: list[list[str]]) -> Counter[str]:
    controllers = layer_of("proctor.controllers", table)
    counts: Counter[str] = Counter()
    for module, tree in index.trees.items():
        if layer_of(module, table) <= controllers:
            continue
        room = ".".join(module.split(".")[:2])
        for node in ast.walk(tree):
            receiver: ast.AST | None = None
            if (
                isinstance(node, ast.Subscript)
                and isinstance(node.ctx, ast.Load)
                and isinstance(node.slice, ast.Constant)
                and isinstance(node.slice.value, str)
            ):
                receiver = node.value
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "get"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                receiver = node.func.value
            if receiver is None:
                continue
            name = receiver.attr if isinstance(receiver, ast.Attribute) else getattr(receiver, "id", "")
            if name not in EDGE_RECEIVERS:
                counts[room] += 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modules", action="store_true", help="list each path's modules and its trail")
    parser.add_argument(
        "--edges", action="store_true", help="list each layer climb: the function left, the one returned to"
    )
    args = parser.parse_args()
    index = Index()
    table = layers()
    for title, segments in PATHS.items():
        for what, pick in (("chain", index.path), ("step", index.reach)):
            on_path: set[str] = set()
            trail: list[tuple[str, str]] = []
            for entry, target in segments:
                seg = pick(entry, target)
                on_path |= seg
                trail += index.walk(entry, seg)
            modules = sorted({index.functions[k].module for k in on_path})
            up = [
                (a, b) for a, b in itertools.pairwise(trail) if layer_of(b[0], table) < layer_of(a[0], table)
            ]
            climbs = len(up)
            print(
                f"{title}, {what}: {len(modules)} modules crossed, {climbs} layer climbs, "
                f"{len(on_path)} functions"
            )
            if args.modules:
                print("    " + " ".join(m.removeprefix("proctor.") for m in modules))
                if what == "chain":
                    print("    trail: " + " > ".join(m.removeprefix("proctor.") for m, _ in trail))
            if args.edges:
                for a, b in up:
                    print(f"    climb: {a[1].removeprefix('proctor.')} -> {b[1].removeprefix('proctor.')}")
    counts = dict_reads(index, table)
    print(f"raw dict reads below controllers/: {sum(counts.values())}")
    for room, n in counts.most_common():
        print(f"    {room}: {n}")


if __name__ == "__main__":
    main()
