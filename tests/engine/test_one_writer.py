"""`Match` has one writer: no engine module but match.py writes a private field of a Match or calls its private
methods, and the engine's modules import one another without a circle."""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine" / "src" / "president_engine"
_MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "popitem", "sort",
             "reverse", "add", "discard"}


def match_privates() -> set[str]:
    """The private slots and private methods of `Match`, read from match.py."""
    tree = ast.parse((ENGINE / "match.py").read_text(encoding="utf-8"))
    cls = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "Match")
    names: set[str] = set()
    for node in cls.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__slots__" for t in node.targets):
            names.update(e.value for e in ast.walk(node.value) if isinstance(e, ast.Constant)
                         and isinstance(e.value, str))
        elif isinstance(node, ast.FunctionDef):
            names.add(node.name)
    return {name for name in names if name.startswith("_") and not name.endswith("__")}


def _foreign(node: ast.expr, privates: set[str]) -> bool:
    """True for `<anything but self>._x` with _x a private of Match."""
    return (isinstance(node, ast.Attribute) and node.attr in privates
            and not (isinstance(node.value, ast.Name) and node.value.id == "self"))


def _stored(target: ast.expr) -> list[ast.expr]:
    """The attributes an assignment target writes, directly or through a subscript or an unpacking."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return [a for e in target.elts for a in _stored(e)]
    if isinstance(target, ast.Starred):
        return _stored(target.value)
    if isinstance(target, ast.Subscript):
        return _stored(target.value)
    return [target]


def private_writes(source: str, privates: set[str]) -> list[str]:
    """'line: what' for every write to a Match private, or call of a private method, on something not `self`."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            func = node.func
            if _foreign(func, privates) or (func.attr in _MUTATORS and _foreign(func.value, privates)):
                found.append(f"{node.lineno}: {ast.unparse(func)}(...)")
            elif func.attr == "__new__" and isinstance(func.value, ast.Name) and func.value.id == "Match":
                found.append(f"{node.lineno}: Match.__new__(...)")
        for target in targets:
            found.extend(f"{node.lineno}: {ast.unparse(t)} =" for t in _stored(target) if _foreign(t, privates))
    return found


def engine_imports(source: str) -> set[str]:
    """The engine modules `source` imports, anywhere in it (in functions and under TYPE_CHECKING too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "president_engine":
                found.update(alias.name for alias in node.names if (ENGINE / f"{alias.name}.py").exists())
            elif node.module.startswith("president_engine."):
                found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[1] for a in node.names if a.name.startswith("president_engine."))
    return found


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One path for every circle found by a depth-first walk of `graph` (module -> modules it imports)."""
    circles: list[list[str]] = []
    done: set[str] = set()

    def walk(module: str, path: list[str]) -> None:
        if module in path:
            circles.append([*path[path.index(module):], module])
            return
        if module in done:
            return
        for imported in sorted(graph.get(module, set())):
            walk(imported, [*path, module])
        done.add(module)

    for module in sorted(graph):
        walk(module, [])
    return circles


def test_no_engine_module_but_match_py_writes_a_private_field_of_a_match() -> None:
    privates = match_privates()
    assert {"_hands", "_seat_player", "_start_trick", "_exchange_steps"} <= privates
    writes = {path.name: private_writes(path.read_text(encoding="utf-8"), privates)
              for path in sorted(ENGINE.glob("*.py")) if path.name != "match.py"}
    assert {name: found for name, found in writes.items() if found} == {}


def test_the_writer_check_sees_every_kind_of_write() -> None:
    source = ("m._hands = []\nm._hands[0] -= 1\nm._a, m._b = 1, 2\nm._out.append(1)\nm._start_trick(0)\n"
              "x = Match.__new__(Match)\nself._hands = []\ny = m._hands[0]\nz = len(m._out)\n")
    assert private_writes(source, {"_hands", "_a", "_b", "_out", "_start_trick"}) == [
        "1: m._hands =", "2: m._hands =", "3: m._a =", "3: m._b =", "4: m._out.append(...)",
        "5: m._start_trick(...)", "6: Match.__new__(...)"]


def test_the_engine_modules_import_one_another_without_a_circle() -> None:
    graph = {path.stem: engine_imports(path.read_text(encoding="utf-8")) - {path.stem}
             for path in ENGINE.glob("*.py")}
    assert import_circles(graph) == []


def test_the_circle_check_finds_a_circle() -> None:
    assert import_circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
