"""Forms of the administration pages: teams, members, envelopes, flavors, cohorts, tiers.

Like ``forms.py``, they only parse HTML input (bounded lengths, one item a line) into
the arguments the catalog services take; every rule is the services' to check.
``core.pages.add_to_form`` puts a service's error paths back on the field they came from.
"""

from __future__ import annotations

import re

from django import forms

from apps.accounts.models import User
from apps.queues.models import Cohort, PriorityTier, ResourceFlavor
from core.roles import TeamRole

SEP = "|"
MAX_LINES = 32  # more than Kueue allows for labels, taints or tolerations (8 each)


def _lines(text: str, field: str) -> list[str]:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) > MAX_LINES:
        raise forms.ValidationError(f"at most {MAX_LINES} lines")
    return lines


def parse_pairs(text: str, field: str) -> dict[str, str]:
    """``key=value`` lines into a dict (capacity, node labels)."""
    pairs: dict[str, str] = {}
    for number, line in enumerate(_lines(text, field), start=1):
        key, sep, value = line.partition("=")
        if not sep or not key.strip():
            raise forms.ValidationError(f"line {number}: write key=value, one per line")
        if key.strip() in pairs:
            raise forms.ValidationError(f"line {number}: {key.strip()} is given twice")
        pairs[key.strip()] = value.strip()
    return pairs


def format_pairs(pairs: dict) -> str:
    return "\n".join(f"{key}={value}" for key, value in pairs.items())


def parse_taints(text: str, field: str) -> list[dict]:
    """``key[=value]:Effect`` lines, as ``kubectl taint`` writes them."""
    taints = []
    for number, line in enumerate(_lines(text, field), start=1):
        head, sep, effect = line.rpartition(":")
        if not sep:
            raise forms.ValidationError(f"line {number}: write key[=value]:Effect")
        key, has_value, value = head.partition("=")
        taint = {"key": key.strip(), "effect": effect.strip()}
        if has_value:
            taint["value"] = value.strip()
        taints.append(taint)
    return taints


def format_taints(taints: list[dict]) -> str:
    return "\n".join(
        f"{t.get('key', '')}{'=' + t['value'] if t.get('value') else ''}:{t.get('effect', '')}"
        for t in taints
    )


def parse_tolerations(text: str, field: str) -> list[dict]:
    """``key=value[:Effect[:seconds]]`` (operator Equal) or ``key[:Effect[:seconds]]``
    (operator Exists) lines."""
    tolerations = []
    for line in _lines(text, field):
        head, *rest = line.split(":")
        key, has_value, value = head.partition("=")
        toleration = {"key": key.strip(), "operator": "Equal" if has_value else "Exists"}
        if has_value:
            toleration["value"] = value.strip()
        if rest and rest[0].strip():
            toleration["effect"] = rest[0].strip()
        if len(rest) > 1:
            toleration["tolerationSeconds"] = _seconds(rest[1].strip(), line)
        tolerations.append(toleration)
    return tolerations


def _seconds(text: str, line: str) -> int:
    if not re.fullmatch(r"-?\d{1,12}", text):
        raise forms.ValidationError(f"{line}: tolerationSeconds must be a whole number")
    return int(text)


def format_tolerations(tolerations: list[dict]) -> str:
    lines = []
    for t in tolerations:
        line = t.get("key", "")
        if t.get("operator", "Equal") == "Equal":
            line += f"={t.get('value', '')}"
        if t.get("effect") or "tolerationSeconds" in t:
            line += f":{t.get('effect', '')}"
        if "tolerationSeconds" in t:
            line += f":{t['tolerationSeconds']}"
        lines.append(line)
    return "\n".join(lines)


class _CatalogForm(forms.Form):
    """A catalog object's form: ``name`` is asked only when creating one, and may not be
    a name already taken (the save services would update that object instead)."""

    model = None

    def __init__(self, *args, editing: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        if editing:
            del self.fields["name"]

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if self.model.objects.filter(name=name).exists():
            kind = self.model._meta.verbose_name
            raise forms.ValidationError(f"a {kind} named {name!r} already exists; edit it instead")
        return name


class TeamCreateForm(forms.Form):
    slug = forms.CharField(max_length=63, help_text="names its Kueue objects; fixed once created")
    display_name = forms.CharField(max_length=200)
    cost_center = forms.CharField(max_length=63, required=False)
    namespaces = forms.CharField(
        max_length=2000,
        required=False,
        help_text="Kubernetes namespaces, separated by spaces; empty: team-<slug>",
    )

    def clean_namespaces(self) -> list[str]:
        names = self.cleaned_data["namespaces"].replace(",", " ").split()
        if len(names) > MAX_LINES:
            raise forms.ValidationError(f"at most {MAX_LINES} namespaces")
        return names

    def arguments(self) -> dict:
        data = self.cleaned_data
        return {**data, "namespaces": data["namespaces"] or [f"team-{data['slug']}"]}


class TeamEditForm(forms.Form):
    display_name = forms.CharField(max_length=200)
    cost_center = forms.CharField(max_length=63, required=False)


class MemberAddForm(forms.Form):
    username = forms.CharField(max_length=150)
    role = forms.ChoiceField(choices=TeamRole.choices, initial=TeamRole.SCIENTIST)

    def clean_username(self) -> User:
        username = self.cleaned_data["username"].strip()
        user = User.objects.filter(username=username, is_active=True).first()
        if user is None:
            raise forms.ValidationError(f"no active user named {username!r}")
        return user


class MemberRoleForm(forms.Form):
    role = forms.ChoiceField(choices=TeamRole.choices)


def limit_field(flavor: str, resource: str, part: str) -> str:
    return SEP.join(("e", flavor, resource, part))


LIMIT_PARTS = ("max_nominal", "max_borrowing")


class EnvelopeForm(forms.Form):
    """Weight range plus one row per flavor × resource; an empty max nominal sets no
    limit for that row (the lead then needs approval for any of it)."""

    min_weight = forms.CharField(max_length=64, required=False)
    max_weight = forms.CharField(max_length=64, required=False)
    reason = forms.CharField(max_length=2000, required=False, widget=forms.Textarea({"rows": 2}))

    def __init__(self, *args, grid: list[tuple[str, str]], **kwargs):
        super().__init__(*args, **kwargs)
        self.grid = grid
        for flavor, resource in grid:
            for part in LIMIT_PARTS:
                name = limit_field(flavor, resource, part)
                self.fields[name] = forms.CharField(max_length=64, required=False)

    @staticmethod
    def initial_from(envelope) -> dict:
        if envelope is None:
            return {}
        initial = {"min_weight": envelope.min_weight, "max_weight": envelope.max_weight}
        for limit in envelope.limits.select_related("flavor"):
            initial[limit_field(limit.flavor.name, limit.resource, "max_nominal")] = (
                limit.max_nominal
            )
            initial[limit_field(limit.flavor.name, limit.resource, "max_borrowing")] = (
                limit.max_borrowing or ""
            )
        return initial

    def limits(self) -> list[dict]:
        data, limits = self.cleaned_data, []
        for flavor, resource in self.grid:
            nominal = data[limit_field(flavor, resource, "max_nominal")].strip()
            borrowing = data[limit_field(flavor, resource, "max_borrowing")].strip()
            if nominal or borrowing:
                limits.append(
                    {
                        "flavor": flavor,
                        "resource": resource,
                        "max_nominal": nominal,
                        "max_borrowing": borrowing or None,
                    }
                )
        return limits

    def rows(self) -> list[dict]:
        return [
            {"flavor": f, "resource": r, **{p: self[limit_field(f, r, p)] for p in LIMIT_PARTS}}
            for f, r in self.grid
        ]

    def field_for(self, limits: list[dict]):
        def field(path: str) -> str | None:
            if not path.startswith("limits[") or "]." not in path:
                return None
            index, part = path[len("limits[") :].split("].", 1)
            limit = limits[int(index)]
            name = limit_field(limit["flavor"], limit["resource"], part)
            return name if name in self.fields else None

        return field


def _lines_field(help_text: str, *, required: bool = False) -> forms.CharField:
    """A textarea of one item a line (capacity, labels, taints, tolerations)."""
    widget = forms.Textarea({"rows": 3 if required else 2})
    return forms.CharField(max_length=4000, required=required, widget=widget, help_text=help_text)


class FlavorForm(_CatalogForm):
    model = ResourceFlavor
    name = forms.CharField(max_length=253)
    gpu_model = forms.CharField(label="GPU model", max_length=100, required=False)
    description = forms.CharField(
        max_length=2000, required=False, widget=forms.Textarea({"rows": 2})
    )
    capacity = _lines_field(
        "physical capacity, one resource=quantity a line, e.g. nvidia.com/gpu=64", required=True
    )
    node_labels = _lines_field(
        "key=value a line; Kueue places this flavor's workloads on nodes with them"
    )
    node_taints = _lines_field("key[=value]:Effect a line")
    tolerations = _lines_field(
        "key=value[:Effect[:seconds]] (Equal) or key[:Effect[:seconds]] (Exists)"
    )
    topology_levels = _lines_field(
        "name=node label key a line, widest first (Kueue topology-aware placement), e.g. "
        "block=example.com/block, rack=example.com/rack, host=kubernetes.io/hostname; "
        "fixed once saved, with the node labels and tolerations"
    )
    reason = forms.CharField(max_length=2000, required=False)
    capacity_override_reason = forms.CharField(
        max_length=2000,
        required=False,
        help_text="save a capacity below the nominal quota queues hold (audited)",
    )

    def clean_capacity(self) -> dict[str, str]:
        return parse_pairs(self.cleaned_data["capacity"], "capacity")

    def clean_topology_levels(self) -> list[dict]:
        pairs = parse_pairs(self.cleaned_data["topology_levels"], "topology_levels")
        return [{"name": name, "node_label": key} for name, key in pairs.items()]

    def clean_node_labels(self) -> dict[str, str]:
        return parse_pairs(self.cleaned_data["node_labels"], "node_labels")

    def clean_node_taints(self) -> list[dict]:
        return parse_taints(self.cleaned_data["node_taints"], "node_taints")

    def clean_tolerations(self) -> list[dict]:
        return parse_tolerations(self.cleaned_data["tolerations"], "tolerations")

    @staticmethod
    def initial_from(flavor) -> dict:
        return {
            "gpu_model": flavor.gpu_model,
            "description": flavor.description,
            "capacity": format_pairs({c.resource: c.capacity for c in flavor.capacities.all()}),
            "node_labels": format_pairs(flavor.node_labels),
            "node_taints": format_taints(flavor.node_taints),
            "tolerations": format_tolerations(flavor.tolerations),
            "topology_levels": format_pairs(
                {level["name"]: level["node_label"] for level in flavor.topology_levels}
            ),
        }


class CohortForm(_CatalogForm):
    model = Cohort
    name = forms.CharField(max_length=253)
    parent = forms.ChoiceField(required=False)
    fair_weight = forms.CharField(max_length=64, initial="1")
    description = forms.CharField(
        max_length=2000, required=False, widget=forms.Textarea({"rows": 2})
    )

    def __init__(self, *args, parents: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["parent"].choices = [("", "— none (a root) —")] + [(p, p) for p in parents]

    def clean_parent(self) -> str | None:
        return self.cleaned_data["parent"] or None


class PriorityTierForm(_CatalogForm):
    model = PriorityTier
    name = forms.CharField(max_length=63)
    value = forms.IntegerField(help_text="higher runs first and may preempt lower")
    description = forms.CharField(max_length=2048, required=False)
