"""sdk/README.md gives every public function of the SDK with its true parameters and return type.

Each function is written there once as ``name(params) -> Return`` in
backticks; the parameters listed must be the function's own, in order, with
their true defaults, and ``...`` stands for further optional ones.
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import president_sdk
import pytest
from president_sdk import legal

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "sdk" / "README.md").read_text(encoding="utf-8")
SIGNATURE = re.compile(r"`(\w+)\(([^`]*)\) -> ([^`]+)`")

FUNCTIONS: dict[str, Callable[..., Any]] = {
    **{name: getattr(president_sdk, name) for name in president_sdk.__all__
       if callable(getattr(president_sdk, name)) and not inspect.isclass(getattr(president_sdk, name))},
    "give_backs": legal.give_backs,
    "resolve": legal.resolve,
}


def returns_of(function: Callable[..., Any]) -> Any:
    """The function's return annotation; for a mypyc-compiled one, which keeps none, the one its source declares."""
    annotation = inspect.signature(function).return_annotation
    if annotation is not inspect.Signature.empty or inspect.isfunction(function):
        return annotation
    package, _, module = function.__module__.partition(".")
    source = ROOT / package.removeprefix("president_") / "src" / package / f"{module.replace('.', '/')}.py"
    found = [node.returns for node in ast.walk(ast.parse(source.read_text(encoding="utf-8")))
             if isinstance(node, ast.FunctionDef) and node.name == function.__name__]
    assert len(found) == 1 and found[0] is not None, f"{function.__name__}: no annotated def in {source}"
    return ast.unparse(found[0])


def documented() -> dict[str, tuple[list[str], str]]:
    """Each ``name(params) -> Return`` of the README (``\\|`` in a table cell is ``|``): its parameters and return."""
    out: dict[str, tuple[list[str], str]] = {}
    for name, params, returns in SIGNATURE.findall(README.replace("\\|", "|")):
        assert name not in out, f"{name} is written twice"
        out[name] = ([p.strip() for p in params.split(",") if p.strip()], returns.strip())
    return out


def test_every_public_function_is_documented_once() -> None:
    missing = sorted(set(FUNCTIONS) - set(documented()))
    assert missing == [], f"functions of president_sdk not in sdk/README.md as `name(params) -> Return`: {missing}"


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_the_documented_signature_is_the_functions_own(name: str) -> None:
    params, returns = documented()[name]
    signature = inspect.signature(FUNCTIONS[name])
    assert returns == returns_of(FUNCTIONS[name]), f"{name} returns {returns_of(FUNCTIONS[name])}"
    real = signature.parameters
    listed = [p.partition("=")[0] for p in params if p not in ("*", "...")]
    assert listed == [p for p in real if p in listed], f"{name}: {listed} are not its parameters in order"
    required = [p.name for p in real.values() if p.default is inspect.Parameter.empty]
    assert set(required) <= set(listed), f"{name}: a required parameter is missing"
    assert "..." in params or len(listed) == len(real), f"{name}: some parameters are left out without `...`"
    for text in params:
        key, _, default = text.partition("=")
        if default:
            assert ast.literal_eval(default) == real[key].default, f"{name}: {key} defaults to {real[key].default!r}"
        if key == "*":
            first = next(p for p in real.values() if p.kind is inspect.Parameter.KEYWORD_ONLY)
            assert params[params.index("*") + 1].partition("=")[0] == first.name, f"{name}: `*` is misplaced"
