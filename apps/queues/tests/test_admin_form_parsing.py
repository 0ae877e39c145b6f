"""The administration forms' one-item-a-line syntax for labels, taints and tolerations."""

import pytest
from django import forms

from apps.queues.catalog_forms import (
    format_taints,
    format_tolerations,
    parse_pairs,
    parse_taints,
    parse_tolerations,
)


def test_pairs_skip_blank_lines_and_trim():
    assert parse_pairs(" a = 1 \n\n b=x=y\n", "f") == {"a": "1", "b": "x=y"}


@pytest.mark.parametrize(
    ("text", "rule"), [("a", "line 1: write key=value"), ("a=1\na=2", "line 2: a is given twice")]
)
def test_pairs_name_the_line_and_the_rule(text, rule):
    with pytest.raises(forms.ValidationError, match=rule):
        parse_pairs(text, "f")


def test_more_lines_than_the_bound_are_refused():
    with pytest.raises(forms.ValidationError, match="at most 32 lines"):
        parse_pairs("\n".join(f"k{i}=v" for i in range(33)), "f")


def test_taints_read_as_kubectl_writes_them_and_round_trip():
    text = "gpu=h100:NoSchedule\nmaintenance:NoExecute"
    taints = [
        {"key": "gpu", "value": "h100", "effect": "NoSchedule"},
        {"key": "maintenance", "effect": "NoExecute"},
    ]
    assert parse_taints(text, "t") == taints
    assert format_taints(taints) == text


def test_a_taint_without_effect_names_the_syntax():
    with pytest.raises(forms.ValidationError, match="write key\\[=value\\]:Effect"):
        parse_taints("gpu=h100", "t")


def test_tolerations_equal_exists_and_seconds_round_trip():
    text = "gpu=h100:NoSchedule\nspot\nmaintenance:NoExecute:300"
    tolerations = [
        {"key": "gpu", "operator": "Equal", "value": "h100", "effect": "NoSchedule"},
        {"key": "spot", "operator": "Exists"},
        {
            "key": "maintenance",
            "operator": "Exists",
            "effect": "NoExecute",
            "tolerationSeconds": 300,
        },
    ]
    assert parse_tolerations(text, "t") == tolerations
    assert format_tolerations(tolerations) == text


def test_toleration_seconds_must_be_whole():
    with pytest.raises(forms.ValidationError, match="tolerationSeconds must be a whole number"):
        parse_tolerations("a:NoExecute:soon", "t")
