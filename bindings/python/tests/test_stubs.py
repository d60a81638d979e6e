"""``webnn/__init__.pyi`` agrees with the runtime: the same public names, the same methods on
each class, and for each of the 95 operations the same parameters (names, kinds, IDL
defaults) as the table in ``_ops.py`` that makes the methods; and the operations' section of
the stub is the one ``scripts/gen_stubs.py`` generates from that table."""

from __future__ import annotations

import ast
import inspect
import os
from typing import Any, Dict

import webnn
from webnn._ops import OPS

STUB = os.path.join(os.path.dirname(webnn.__file__), "__init__.pyi")


def stub_classes() -> Dict[str, ast.ClassDef]:
    with open(STUB) as f:
        tree = ast.parse(f.read())
    return {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}


def methods(cls: ast.ClassDef) -> Dict[str, ast.FunctionDef]:
    return {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}


def test_public_names() -> None:
    with open(STUB) as f:
        tree = ast.parse(f.read())
    stub_all = next(
        ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "__all__"
    )
    assert stub_all == webnn.__all__
    classes = stub_classes()
    for name in webnn.__all__:
        assert hasattr(webnn, name), name
        if isinstance(getattr(webnn, name), type):
            assert name in classes, f"{name} has no stub"


def test_class_members_exist_at_runtime() -> None:
    for name, cls in stub_classes().items():
        runtime = getattr(webnn, name)
        for member in methods(cls):
            assert hasattr(runtime, member), f"{name}.{member} is in the stub but not at runtime"


def test_every_operation_signature() -> None:
    stub = methods(stub_classes()["MLGraphBuilder"])
    ops_in_stub = {n for n in stub if n not in ("__init__", "input", "constant", "build")}
    assert ops_in_stub == set(OPS)
    assert len(OPS) == 95
    for name, op in OPS.items():
        runtime = inspect.signature(getattr(webnn.MLGraphBuilder, name))
        fn = stub[name]
        positional = [a.arg for a in fn.args.args]
        keyword = [a.arg for a in fn.args.kwonlyargs]
        defaults: Dict[str, Any] = {a.arg: ast.literal_eval(d) for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults) if d}
        expected_positional = [p.name for p in runtime.parameters.values() if p.kind == p.POSITIONAL_OR_KEYWORD]
        expected_keyword = [p.name for p in runtime.parameters.values() if p.kind == p.KEYWORD_ONLY]
        assert positional == expected_positional, name
        assert keyword == expected_keyword, name
        for p in runtime.parameters.values():
            if p.kind == p.KEYWORD_ONLY:
                assert defaults.get(p.name) == p.default, f"{name}({p.name}=...)"
        assert ast.get_docstring(fn) and op.url in (ast.get_docstring(fn) or ""), name
        assert op.url in (getattr(webnn.MLGraphBuilder, name).__doc__ or "")


def test_operation_stubs_are_generated() -> None:
    """The committed op-method section of ``__init__.pyi`` is what ``scripts/gen_stubs.py``
    writes from the op table (run the script after a change to the op signatures)."""
    import gen_stubs

    with open(gen_stubs.STUB, encoding="utf-8") as f:
        committed = f.read()
    assert committed.count(gen_stubs.BEGIN) == 1 and committed.count(gen_stubs.END) == 1
    assert gen_stubs.generated(committed) == committed, "__init__.pyi is out of date: run python scripts/gen_stubs.py"
