"""The ClusterRole grants exactly the Kubernetes calls the code makes.

``core/rbac.py`` declares (group, resource, verbs) per module. These tests read
the code: which modules call which ``KubeClient`` verbs, which ``ResourceRef``s
exist, and check the declaration matches both ways; the rendered kustomize
ClusterRole is the declaration's rendering; and ``KubeClient`` refuses an
undeclared call before it leaves the process.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from collections import defaultdict
from pathlib import Path

import pytest

from core import rbac
from core.kube import KubeClient, KubeError, ResourceRef

ROOT = Path(__file__).resolve().parents[2]
# KubeClient method → the Kubernetes verb it uses.
VERBS = {
    "get": "get",
    "list": "list",
    "list_with_version": "list",
    "watch": "watch",
    "create": "create",
    "patch": "patch",
    "delete": "delete",
}
SKIPPED = {"core.kube", "core.rbac"}
# Generic helpers make calls on behalf of the module that drives them.
DELEGATES = {"core.watching": ("apps.reports.recorder", "apps.jobs.watch")}


def _modules() -> dict[str, ast.Module]:
    found = {}
    for folder in ("core", "apps", "portal"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if "tests" in parts or "migrations" in parts:
                continue
            name = ".".join(p for p in parts if p != "__init__")
            if name not in SKIPPED:
                found[name] = ast.parse(path.read_text(), filename=str(path))
    return found


def _is_client_annotation(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Name | ast.Constant) and "KubeClient" in ast.unparse(node)


def _client_names(tree: ast.Module) -> set[str]:
    """Receivers that hold a KubeClient: annotated parameters, ``with KubeClient() as x``,
    and ``self.x`` attributes assigned from such a parameter (as ``self.kube``)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and _is_client_annotation(node.annotation):
            names.add(node.arg)
        if (
            isinstance(node, ast.withitem)
            and "KubeClient(" in ast.unparse(node.context_expr)
            and isinstance(node.optional_vars, ast.Name)
        ):
            names.add(node.optional_vars.id)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target, value in _pairs(node):
                if isinstance(target, ast.Attribute) and ast.unparse(value) in names:
                    names.add(ast.unparse(target))
    return names


def _pairs(node: ast.Assign):
    """(target, value) pairs, unpacking ``a, b = x, y``."""
    for target in node.targets:
        if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
            yield from zip(target.elts, node.value.elts, strict=False)
        else:
            yield target, node.value


def called_verbs() -> dict[str, set[str]]:
    """module → KubeClient verbs it calls."""
    calls: dict[str, set[str]] = defaultdict(set)
    for module, tree in _modules().items():
        clients = _client_names(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in VERBS
                and ast.unparse(node.func.value) in clients
            ):
                for caller in DELEGATES.get(module, (module,)):
                    calls[caller].add(VERBS[node.func.attr])
    return dict(calls)


def declared_verbs() -> dict[str, set[str]]:
    declared: dict[str, set[str]] = defaultdict(set)
    for use in rbac.USES:
        declared[use.module].update(use.verbs)
    return dict(declared)


def defined_refs() -> set[tuple[str, str]]:
    """(group, plural) of every ResourceRef the code can build.

    Module-level constants are read; functions that build one are called (with
    every kind they know, for the reconciler's ``ref(kind, version)``).
    """
    refs: set[ResourceRef] = set()
    for module, tree in _modules().items():
        builders = _ref_builders(tree)
        if not builders and "ResourceRef(" not in ast.unparse(tree):
            continue
        loaded = importlib.import_module(module)
        refs |= {v for v in vars(loaded).values() if isinstance(v, ResourceRef)}
        for name in builders:
            refs |= set(_call_builder(module, getattr(loaded, name)))
    return {(r.group, r.plural) for r in refs}


def _ref_builders(tree: ast.Module) -> list[str]:
    return [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and "ResourceRef(" in ast.unparse(node)
    ]


def _call_builder(module: str, builder) -> list[ResourceRef]:
    parameters = list(inspect.signature(builder).parameters)
    if not parameters:
        return [builder()]
    if module == "apps.queues.reconcile.observe" and parameters == ["kind", "version"]:
        from apps.queues import kueue
        from apps.queues.reconcile import observe

        kinds = (*kueue.KINDS, *observe._KUEUE_KINDS)  # every kind it observes, and Workloads
        return [builder(kind, v) for kind in kinds for v in ("v1beta1", "v1beta2")]
    pytest.fail(f"{module}.{builder.__name__} builds ResourceRefs; teach this test its arguments")


def test_every_public_client_method_has_a_verb():
    public = {name for name in vars(KubeClient) if not name.startswith("_")}
    assert public - {"close", "enforce_rbac"} == set(VERBS)


def test_every_module_declares_exactly_the_verbs_it_calls():
    assert called_verbs() == declared_verbs()


def test_the_declared_resources_are_exactly_those_the_code_defines():
    declared = {(use.group, use.resource.split("/")[0]) for use in rbac.USES}
    # The visibility API serves LocalQueues' pending workloads under its own group.
    assert defined_refs() == declared


def test_the_kustomize_cluster_role_is_the_rendered_declaration():
    committed = (ROOT / "deploy" / "kustomize" / "base" / "clusterrole.yaml").read_text()
    assert committed == rbac.render(), (
        "regenerate: python -m core.rbac > deploy/kustomize/base/clusterrole.yaml"
    )


def test_no_rule_grants_wildcards_or_secrets():
    for rule in rbac.cluster_role_rules():
        assert "*" not in rule["verbs"] + rule["resources"] + rule["apiGroups"]
        assert "secrets" not in rule["resources"]
        assert not {"escalate", "bind", "impersonate"} & set(rule["verbs"])


def test_the_client_refuses_an_undeclared_call_before_sending_it():
    secrets = ResourceRef("", "v1", "secrets", "Secret", True)
    client = KubeClient.__new__(KubeClient)  # never connects: the check comes first
    client._api, client._timeout = None, 1.0
    with pytest.raises(KubeError) as raised:
        client.list(secrets)
    assert raised.value.code == 403 and "core/rbac.py" in raised.value.message
    assert not raised.value.transient
