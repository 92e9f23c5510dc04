"""How far two call paths travel through Proctor's rooms, and how much raw dict reading is left.

    .venv/bin/python hack/callpaths.py [--modules] [--edges] [--refs] [--by-name] [--source DIR]

``--source DIR`` measures another checkout with this tool (``git worktree add --detach DIR COMMIT``);
a path function that moved since is looked up where it was (``EARLIER``).

Issue 27 asks that the EvalRun path (its handler to its status write) and the live-run path
(ingestion to the stored scores) cross fewer modules and climb back up fewer layers after the
restructure, and that raw dict access below ``controllers/`` be counted before and after. This prints
the same figures each time so the two can be compared.

How the figures are made (a static estimate, the same each run; not a profiler):

- **Reference graph.** Every function and method of ``proctor`` is a node. A function refers to
  another when its body names it: a name imported from a ``proctor`` module or defined in its own
  module, ``module.name`` for an imported module, ``Class.name`` for a class imported or defined in
  its own module, and ``x.name`` for the method or property ``name`` of ``x``'s class (or of a
  subclass overriding it). ``x``'s class comes from the annotations: a parameter's, ``x: T = ...``,
  a field's annotation in its class (``self.x``, ``meta.name``), the return annotation of the proctor
  function or class a name is assigned from (``meta = ObjectMeta.of(obj)``). A value of a builtin or
  library type (``Mapping``, ``str``, a logger) runs no proctor code, so ``raw.get(...)`` or
  ``log.error(...)`` is no edge, and neither is a field read (``meta.name`` of a dataclass field).
  Only where the annotations cannot tell (``Any``, an unannotated name, a ``Protocol``) does
  ``x.name`` fall back to every method called ``name`` in a module the caller's module imports
  (directly or not: grimp, import-linter's own library, gives the import graph). ``--by-name`` is
  that fallback everywhere (how the figures were made before 6 December 2026). A reference, not only
  a call, is an edge, because ``asyncio.to_thread(self.store.complete, ...)`` runs ``complete``.
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
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import grimp

REPO = Path(__file__).resolve().parents[1]

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

#: Where a path's functions lived before they moved, for measuring an older checkout (``--source``):
#: the store was one class until its split by concern (049495b).
EARLIER = {
    "proctor.store._ingestion:Ingestion.ingest": "proctor.store._store:Store.ingest",
    "proctor.store._queue:WorkQueue.complete": "proctor.store._store:Store.complete",
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


def module_files(repo: Path) -> dict[str, Path]:
    source = repo / "operator"
    out = {}
    for path in sorted((source / "proctor").rglob("*.py")):
        parts = list(path.relative_to(source).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def layers(repo: Path) -> list[list[str]]:
    """The rooms of ``.importlinter``'s ``layers`` contract, top first."""
    cfg = configparser.ConfigParser()
    cfg.read(repo / ".importlinter")
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


#: Names whose annotation says "could be anything": an attribute of such a value is resolved by name.
UNTYPED = {"Any", "object", "Self", "TypeVar"}
#: Wrappers whose first argument is the type of the value (``Optional[T]``, ``Annotated[T, ...]``).
WRAPPERS = {"Optional", "Annotated", "Final", "ClassVar", "Required", "NotRequired", "ReadOnly"}
UNKNOWN = None  # a type the estimate cannot tell: fall back to matching the attribute's name
#: Builtins that are types or return a builtin value: a value of theirs runs no proctor code.
BUILTIN_TYPES = {
    "dict",
    "list",
    "set",
    "frozenset",
    "tuple",
    "str",
    "bytes",
    "bytearray",
    "int",
    "float",
    "bool",
    "complex",
    "len",
    "repr",
    "sorted",
    "range",
    "enumerate",
    "zip",
    "reversed",
    "isinstance",
    "hash",
    "id",
    "abs",
    "round",
    "format",
    "ord",
    "chr",
    "hex",
    "any",
    "all",
    "sum",
    "divmod",
    "BaseException",
    "Exception",
    "ValueError",
    "KeyError",
    "TypeError",
    "RuntimeError",
    "OSError",
}


#: Generic types whose first argument is what iterating them gives.
ITERABLES = {
    "list",
    "set",
    "frozenset",
    "Sequence",
    "MutableSequence",
    "Iterable",
    "Iterator",
    "Collection",
    "AbstractSet",
    "MutableSet",
    "deque",
    "Generator",
    "AsyncIterator",
    "AsyncIterable",
    "AsyncGenerator",
    "dict",
    "Mapping",
    "MutableMapping",
}


#: Expressions that make a builtin value.
LITERALS = (
    ast.Dict,
    ast.List,
    ast.Set,
    ast.Tuple,
    ast.Constant,
    ast.JoinedStr,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.Compare,
    ast.BinOp,
    ast.UnaryOp,
)


def _is_ellipsis(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis


def _union(a: set[str] | None, b: set[str] | None) -> set[str] | None:
    return UNKNOWN if a is None or b is None else a | b


def _is_property(node: ast.AST) -> bool:
    decorators = getattr(node, "decorator_list", [])
    return any(
        getattr(d, "id", getattr(d, "attr", "")) in {"property", "cached_property"} for d in decorators
    )


@dataclass
class Klass:
    key: str  # module:Class
    module: str
    node: ast.ClassDef
    bases: list[str] = field(default_factory=list)  # proctor classes it derives from
    protocol: bool = False  # a typing.Protocol (or a base the estimate cannot see): any implementation
    fields: dict[str, ast.expr | None] = field(default_factory=dict)  # attribute -> its annotation


class Index:
    def __init__(self, repo: Path, *, typed: bool = True) -> None:
        self.typed_refs = typed
        self.files = module_files(repo)
        sys.path.insert(0, str(repo / "operator"))
        self.graph = grimp.build_graph("proctor", exclude_type_checking_imports=True)  # run-time imports
        self.functions: dict[str, Function] = {}
        self.classes: dict[str, Klass] = {}
        self.by_name: dict[str, list[str]] = {}
        self.trees: dict[str, ast.Module] = {}
        self._raw: dict[str, tuple[dict[str, tuple[str, str]], dict[str, str]]] = {}
        self._foreign: dict[str, set[str]] = {}
        self._subclasses: dict[str, set[str]] = {}
        self._module_envs: dict[str, dict[str, set[str] | None]] = {}
        #: attribute references (``x.attr``) resolved by ``x``'s type, and by the attribute's name
        self.typed = 0
        self.by_name_only = 0
        for module, path in self.files.items():
            tree = ast.parse(path.read_text(), str(path))
            self.trees[module] = tree
            self._collect(module, tree)
        for klass in self.classes.values():
            self._bases(klass)
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
                klass = Klass(f"{module}:{node.name}", module, node)
                self.classes[klass.key] = klass
                for item in node.body:
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                        add(item, f"{node.name}.{item.name}", node.name)
                    elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                        klass.fields[item.target.id] = item.annotation
                    elif isinstance(item, ast.Assign):
                        for t in item.targets:
                            if isinstance(t, ast.Name):
                                klass.fields.setdefault(t.id, None)
                for method in node.body:  # self.x = ... / self.x: T = ... in its methods
                    if isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
                        self._self_fields(klass, method)

    @staticmethod
    def _self_fields(klass: Klass, method: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """The attributes a method sets on ``self``, with what tells their type: an annotation, the
        annotation of the parameter assigned (``self.kube = kube``), the class called
        (``self.lock = threading.Lock()``); the first that tells wins."""
        a = method.args
        params = {arg.arg: arg.annotation for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs]}
        for sub in ast.walk(method):
            target: ast.expr | None = None
            ann: ast.expr | None = None
            if isinstance(sub, ast.AnnAssign):
                target, ann = sub.target, sub.annotation
            elif isinstance(sub, ast.Assign) and len(sub.targets) == 1:
                target, value = sub.targets[0], sub.value
                if isinstance(value, ast.Name):
                    ann = params.get(value.id)
                elif isinstance(value, ast.Call) and isinstance(value.func, ast.Name | ast.Attribute):
                    ann = value.func
                elif isinstance(value, LITERALS) and not (
                    isinstance(value, ast.Constant) and value.value is None
                ):
                    ann = ast.Name(id="str")  # a builtin value (self.url = ""): no proctor class
            if (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == "self"
                and klass.fields.get(target.attr) is None
            ):
                klass.fields[target.attr] = ann

    def _bases(self, klass: Klass) -> None:
        names, modules = self._imports(klass.module, self.trees[klass.module])
        for written in klass.node.bases:
            base = written.value if isinstance(written, ast.Subscript) else written  # Generic[T]
            key = self._class_of(klass.module, base, names, modules)
            if key is not None:
                klass.bases.append(key)
                self._subclasses.setdefault(key, set()).add(klass.key)
            elif isinstance(base, ast.Name) and base.id in {"Protocol", "ABC"}:
                klass.protocol = True  # its methods are whatever implements it
            elif isinstance(base, ast.Name) and base.id in names:
                klass.protocol = True  # a proctor base the estimate cannot read as a class

    def _class_of(
        self, module: str, node: ast.expr, names: dict[str, str], modules: dict[str, str]
    ) -> str | None:
        """The proctor class an expression names (``Name``, ``module.Name``), else None."""
        key = None
        if isinstance(node, ast.Name):
            key = names.get(node.id, f"{module}:{node.id}")
        elif (
            isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules
        ):
            key = self._resolve(modules[node.value.id], node.attr)
        return key if key in self.classes else None

    def _foreign_names(self, module: str) -> set[str]:
        """Names the module binds from outside proctor (``from typing import Mapping``, ``import
        httpx``): a value annotated with one of them runs no proctor code when its attributes are read."""
        if module not in self._foreign:
            out: set[str] = set()
            for node in ast.walk(self.trees[module]):
                if (
                    isinstance(node, ast.ImportFrom)
                    and not node.level
                    and not (node.module or "").startswith("proctor")
                ):
                    out |= {a.asname or a.name for a in node.names}
                elif isinstance(node, ast.Import):
                    out |= {
                        a.asname or a.name.split(".")[0]
                        for a in node.names
                        if not a.name.startswith("proctor")
                    }
            self._foreign[module] = out
        return self._foreign[module]

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

    # --- types: what the estimate knows of a value, from annotations ------------------------------
    # A type is a set of proctor class keys; the empty set is a value of no proctor class (a builtin,
    # a library's object, None); UNKNOWN (None) is a value the annotations do not tell.

    def _ann(self, module: str, node: ast.expr | None) -> set[str] | None:
        """The proctor classes an annotation names."""
        if node is None:
            return UNKNOWN
        names, modules = self._imports(module, self.trees[module])
        if isinstance(node, ast.Constant):
            if node.value is None:
                return set()
            if not isinstance(node.value, str):
                return UNKNOWN
            try:
                return self._ann(module, ast.parse(node.value, mode="eval").body)
            except SyntaxError:
                return UNKNOWN
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return _union(self._ann(module, node.left), self._ann(module, node.right))
        if isinstance(node, ast.Subscript):
            outer = node.value
            name = outer.id if isinstance(outer, ast.Name) else getattr(outer, "attr", "")
            args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if name in WRAPPERS:
                return self._ann(module, args[0])
            if name == "Union":
                out: set[str] | None = set()
                for arg in args:
                    out = _union(out, self._ann(module, arg))
                return out
            if name == "type":
                return UNKNOWN  # a class object: its attributes are its class methods
            return self._ann(module, outer)  # Mapping[str, X]: a Mapping; Box[X]: a Box
        key = self._class_of(module, node, names, modules)
        if key is not None:
            return {key}
        foreign = self._foreign_names(module)
        if isinstance(node, ast.Name):
            if node.id in UNTYPED or node.id in names or node.id not in foreign | BUILTIN_TYPES:
                return UNKNOWN  # Any, a TypeVar, an alias of proctor's
            return set()
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in foreign:
            return set()  # web.Request, dt.datetime
        return UNKNOWN

    def _mro(self, key: str) -> list[str]:
        out, todo = [], [key]
        while todo:
            k = todo.pop(0)
            if k not in out and k in self.classes:
                out.append(k)
                todo += self.classes[k].bases
        return out

    def _member(self, classes: set[str], attr: str) -> tuple[list[str], set[str] | None] | None:
        """What ``x.attr`` runs for ``x`` of one of ``classes`` (its method, or an override in a
        subclass) and the type it gives; None when a class cannot tell (a Protocol's, an unread base)."""
        runs: list[str] = []
        typ: set[str] | None = set()
        for cls in classes:
            found = False
            for k in self._mro(cls):
                klass = self.classes[k]
                method = f"{k}.{attr}"
                if method in self.functions:
                    runs.append(method)
                    runs += [f"{sub}.{attr}" for sub in self._below(cls) if f"{sub}.{attr}" in self.functions]
                    node = self.functions[method].node
                    returns = (
                        node.returns if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) else None
                    )
                    typ = _union(typ, self._ann(klass.module, returns) if _is_property(node) else UNKNOWN)
                    found = True
                    break
                if attr in klass.fields:
                    field_type = self._ann(klass.module, klass.fields[attr])
                    if field_type is None:
                        return None  # a field of a type nothing tells (self.ingest = self.rooms.ingest)
                    typ = _union(typ, field_type)
                    found = True
                    break
            if not found:
                if any(self.classes[k].protocol for k in self._mro(cls)):
                    return None
                typ = UNKNOWN  # a library base's attribute (BaseModel.model_dump): runs no proctor code
        return runs, typ

    def _below(self, key: str) -> set[str]:
        out: set[str] = set()
        todo = [key]
        while todo:
            for sub in self._subclasses.get(todo.pop(), ()):
                if sub not in out:
                    out.add(sub)
                    todo.append(sub)
        return out

    def _returns(self, key: str) -> set[str] | None:
        if key in self.classes:
            return {key}
        fn = self.functions.get(key)
        node = fn.node if fn is not None else None
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or fn is None:
            return UNKNOWN
        if isinstance(node.returns, ast.Name) and node.returns.id == "Self" and fn.cls:
            return {f"{fn.module}:{fn.cls}"}
        return self._ann(fn.module, node.returns)

    def _type_of(
        self, fn: Function, env: dict[str, set[str] | None], node: ast.expr, depth: int = 0
    ) -> set[str] | None:
        """The type of an expression inside ``fn``: a name's binding, a typed value's attribute, what a
        call of a proctor function or class returns (its annotation)."""
        if depth > 8:
            return UNKNOWN
        if isinstance(node, ast.Await):
            return self._type_of(fn, env, node.value, depth + 1)
        if isinstance(node, ast.BoolOp):  # x or {}: either
            out: set[str] | None = set()
            for value in node.values:
                out = _union(out, self._type_of(fn, env, value, depth + 1))
            return out
        if isinstance(node, ast.IfExp):
            return _union(
                self._type_of(fn, env, node.body, depth + 1), self._type_of(fn, env, node.orelse, depth + 1)
            )
        if isinstance(node, LITERALS):
            return set()  # a dict, list, str, number... written out
        if isinstance(node, ast.Name):
            if node.id == "self" and fn.cls:
                return {f"{fn.module}:{fn.cls}"}
            return env.get(node.id, UNKNOWN)
        if isinstance(node, ast.Attribute):
            _, modules = self._imports(fn.module, self.trees[fn.module])
            if isinstance(node.value, ast.Name) and node.value.id in modules and node.value.id not in env:
                return self._module_env(modules[node.value.id]).get(node.attr, UNKNOWN)  # metrics.RUNS
            base = self._type_of(fn, env, node.value, depth + 1)
            if not base:  # unknown, or a library object: its attribute may hold anything
                return UNKNOWN
            member = self._member(base, node.attr)
            return UNKNOWN if member is None else member[1]
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in BUILTIN_TYPES and func.id not in env:
                return set()  # dict(...), sorted(...), len(...)
            keys = self._callees(fn, env, func, depth + 1)
            if keys is None:
                return UNKNOWN
            out = set()
            for key in keys:
                out = _union(out, self._returns(key))
            return out if keys else UNKNOWN
        return UNKNOWN

    def _callees(
        self, fn: Function, env: dict[str, set[str] | None], func: ast.expr, depth: int
    ) -> list[str] | None:
        """The proctor functions or classes a callee expression names (None: cannot tell)."""
        names, modules = self._imports(fn.module, self.trees[fn.module])
        if isinstance(func, ast.Name):
            key = names.get(func.id, f"{fn.module}:{func.id}")
            return [key] if key in self.functions or key in self.classes else None
        if isinstance(func, ast.Attribute):
            base = func.value
            if isinstance(base, ast.Name) and base.id in modules:
                key = self._resolve(modules[base.id], func.attr)
                return [key] if key in self.functions or key in self.classes else None
            cls = self._class_of(fn.module, base, names, modules) if isinstance(base, ast.Name) else None
            if cls is not None and isinstance(base, ast.Name) and base.id not in env:  # Class.of(...)
                method = next(
                    (f"{k}.{func.attr}" for k in self._mro(cls) if f"{k}.{func.attr}" in self.functions), None
                )
                return [method] if method else None
            typ = self._type_of(fn, env, base, depth)
            if typ:
                member = self._member(typ, func.attr)
                return None if member is None or not member[0] else member[0]
        return None

    def _elem_ann(self, module: str, node: ast.expr | None) -> set[str] | None:
        """The type of what iterating a value of this annotation gives (``Sequence[Event]``: Event)."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                node = ast.parse(node.value, mode="eval").body
            except SyntaxError:
                return UNKNOWN
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return _union(self._elem_ann(module, node.left), self._elem_ann(module, node.right))
        if isinstance(node, ast.Constant) and node.value is None:
            return set()
        if isinstance(node, ast.Name) and node.id in {"str", "bytes"}:
            return set()
        if not isinstance(node, ast.Subscript):
            return UNKNOWN
        outer = node.value
        name = outer.id if isinstance(outer, ast.Name) else getattr(outer, "attr", "")
        args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if name in WRAPPERS:
            return self._elem_ann(module, args[0])
        if name in ITERABLES or (name == "tuple" and (len(args) == 1 or _is_ellipsis(args[-1]))):
            return self._ann(module, args[0])
        return UNKNOWN

    def _elem_of(
        self, fn: Function, env: dict[str, set[str] | None], elems: dict[str, set[str] | None], node: ast.expr
    ) -> set[str] | None:
        """What iterating an expression gives: a name's or a field's element annotation, a call's
        return annotation's; ``sorted``/``list``/``reversed``/``set`` of something: its elements."""
        if isinstance(node, ast.Name):
            return elems.get(node.id, UNKNOWN)
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            out: set[str] | None = set()
            for elt in node.elts:
                out = _union(out, self._type_of(fn, env, elt))
            return out
        if isinstance(node, ast.Attribute):
            base = self._type_of(fn, env, node.value)
            if not base:
                return UNKNOWN
            out = set()
            for cls in base:
                ann = next(
                    (
                        (self.classes[k].module, self.classes[k].fields[node.attr])
                        for k in self._mro(cls)
                        if node.attr in self.classes[k].fields
                    ),
                    None,
                )
                out = _union(out, self._elem_ann(*ann) if ann is not None else UNKNOWN)
            return out
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in {
                "sorted",
                "list",
                "reversed",
                "set",
                "tuple",
                "frozenset",
            }:
                return self._elem_of(fn, env, elems, node.args[0]) if node.args else set()
            if isinstance(node.func, ast.Attribute) and node.func.attr in {"values", "keys"}:
                return UNKNOWN
            keys = self._callees(fn, env, func, 1)
            if not keys:
                return UNKNOWN
            out = set()
            for key in keys:
                target = self.functions.get(key)
                node_ = target.node if target is not None else None
                returns = node_.returns if isinstance(node_, ast.FunctionDef | ast.AsyncFunctionDef) else None
                out = _union(out, self._elem_ann(target.module, returns) if target is not None else UNKNOWN)
            return out
        return UNKNOWN

    def _env(self, fn: Function) -> dict[str, set[str] | None]:
        """Each local name's type: its annotation (a parameter, ``x: T = ...``), what it is assigned
        (a call's return annotation), what the loop that binds it iterates; a name bound more than once
        has the union, unknown if one binding is."""
        env: dict[str, set[str] | None] = {}
        elems: dict[str, set[str] | None] = {}
        later: list[tuple[int, str, ast.expr, bool]] = []  # (line, name, value, is a loop's)

        def bind(name: str, typ: set[str] | None) -> None:
            env[name] = _union(env[name], typ) if name in env else typ

        def bind_elems(name: str, typ: set[str] | None) -> None:
            elems[name] = _union(elems[name], typ) if name in elems else typ

        def targets_of(target: ast.expr, value: ast.expr, loop: bool) -> None:
            if isinstance(target, ast.Name):
                later.append((getattr(value, "lineno", 0), target.id, value, loop))
            elif (
                not loop
                and isinstance(target, ast.Tuple)
                and isinstance(value, ast.Tuple)
                and len(target.elts) == len(value.elts)
            ):
                for t, v in zip(target.elts, value.elts, strict=True):
                    targets_of(t, v, loop)
            else:
                for sub in ast.walk(target):
                    if isinstance(sub, ast.Name):
                        bind(sub.id, UNKNOWN)
                        bind_elems(sub.id, UNKNOWN)

        module_env = self._module_env(fn.module)
        for node in ast.walk(fn.node):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                a = node.args
                for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs]:
                    if arg.arg not in {"self", "cls"}:
                        bind(arg.arg, self._ann(fn.module, arg.annotation))
                        bind_elems(arg.arg, self._elem_ann(fn.module, arg.annotation))
                for star in (a.vararg, a.kwarg):
                    if star is not None:
                        bind(star.arg, set() if star.annotation is not None else UNKNOWN)
                        bind_elems(star.arg, UNKNOWN)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                bind(node.target.id, self._ann(fn.module, node.annotation))
                bind_elems(node.target.id, self._elem_ann(fn.module, node.annotation))
            elif isinstance(node, ast.Assign):
                for t in node.targets:
                    targets_of(t, node.value, False)
            elif isinstance(node, ast.NamedExpr):
                targets_of(node.target, node.value, False)
            elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
                targets_of(node.target, node.iter, True)
            elif isinstance(node, ast.With | ast.AsyncWith):
                for item in node.items:
                    if item.optional_vars is not None:
                        targets_of(item.optional_vars, item.context_expr, False)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                bind(node.name, self._ann(fn.module, node.type))
            elif isinstance(node, ast.Global | ast.Nonlocal):
                for name in node.names:
                    bind(name, UNKNOWN)
                    bind_elems(name, UNKNOWN)
        # after the annotations and in source order, so x = y.z sees y's type
        for _, name, value, loop in sorted(later, key=lambda item: item[0]):
            scope = {**module_env, **env}
            if loop:
                bind(name, self._elem_of(fn, scope, elems, value))
                bind_elems(name, UNKNOWN)
            else:
                bind(name, self._type_of(fn, scope, value))
                bind_elems(
                    name, self._elem_of(fn, scope, elems, value) if isinstance(value, ast.Call) else UNKNOWN
                )
        return {**module_env, **env}

    def _module_env(self, module: str) -> dict[str, set[str] | None]:
        """Module-level names bound by assignment (``log = structlog.get_logger(...)``)."""
        if module in self._module_envs:
            return self._module_envs[module]
        env: dict[str, set[str] | None] = {}
        self._module_envs[module] = env
        for node in self.trees[module].body:
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                env[node.target.id] = self._ann(module, node.annotation)
            elif (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
            ):
                value = node.value
                func = value.func if isinstance(value, ast.Call) else None
                foreign = self._foreign_names(module)
                if (
                    isinstance(func, ast.Attribute)
                    and isinstance(func.value, ast.Name)
                    and func.value.id in foreign
                ) or (isinstance(func, ast.Name) and func.id in foreign):
                    env[node.targets[0].id] = set()  # a library's object (a logger, a metric)
        return env

    def _refs(self, module: str, tree: ast.Module) -> None:
        names, modules = self._imports(module, tree)
        upstream = self.graph.find_upstream_modules(module) | {module}
        for fn in [f for f in self.functions.values() if f.module == module]:
            env = self._env(fn) if self.typed_refs else {}
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
                    elif (
                        isinstance(base, ast.Name)
                        and fn.cls
                        and (base.id == "cls" or (base.id == "self" and not self.typed_refs))
                    ):
                        own = f"{module}:{fn.cls}.{node.attr}"
                        target = [own] if own in self.functions else self._methods(node.attr, upstream)
                    elif isinstance(base, ast.Name) and base.id in names and base.id not in env:
                        target = [f"{names[base.id]}.{node.attr}"]
                    elif isinstance(base, ast.Name) and f"{module}:{base.id}.{node.attr}" in self.functions:
                        target = [f"{module}:{base.id}.{node.attr}"]  # a class of its own module
                    else:
                        typ = self._type_of(fn, env, base) if self.typed_refs else UNKNOWN
                        member = self._member(typ, node.attr) if typ else None
                        if typ is not None and (not typ or member is not None):
                            self.typed += 1
                            target = member[0] if member is not None else []
                        else:
                            self.by_name_only += 1
                            target = self._methods(node.attr, upstream)
                fn.refs += [t for t in target if t in self.functions and t != fn.key]

    def _methods(self, attr: str, upstream: set[str]) -> list[str]:
        return [
            k for k in self.by_name.get(attr, []) if "." in k.split(":", 1)[1] and k.split(":")[0] in upstream
        ]

    def earlier(self, key: str) -> str:
        """``key``, or where it lived in an older checkout (``--source``) that does not have it."""
        return key if key in self.functions else EARLIER.get(key, key)

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
    parser.add_argument(
        "--source",
        type=Path,
        default=REPO,
        help="measure another checkout of the repository (a `git worktree add --detach` of an older commit)",
    )
    parser.add_argument(
        "--by-name",
        action="store_true",
        help="resolve every x.attr by the attribute's name alone (the estimate before types were read)",
    )
    parser.add_argument(
        "--refs", action="store_true", help="list each function of the step and what it refers to"
    )
    args = parser.parse_args()
    index = Index(args.source.resolve(), typed=not args.by_name)
    table = layers(args.source.resolve())
    for title, segments in PATHS.items():
        for what, pick in (("chain", index.path), ("step", index.reach)):
            on_path: set[str] = set()
            trail: list[tuple[str, str]] = []
            for entry, target in segments:
                entry, target = index.earlier(entry), index.earlier(target)
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
            if args.refs and what == "step":
                for key in sorted(on_path):
                    refs = sorted(
                        r.removeprefix("proctor.") for r in set(index.functions[key].refs) if r in on_path
                    )
                    print(f"    {key.removeprefix('proctor.')} -> {', '.join(refs)}")
    print(f"x.attr references resolved by x's type: {index.typed}, by the name alone: {index.by_name_only}")
    counts = dict_reads(index, table)
    print(f"raw dict reads below controllers/: {sum(counts.values())}")
    for room, n in counts.most_common():
        print(f"    {room}: {n}")


if __name__ == "__main__":
    main()
