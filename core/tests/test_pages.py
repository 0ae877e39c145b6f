"""Domain errors on pages: each message lands on the field it is about."""

from __future__ import annotations

import pytest
from django import forms

from core.errors import NON_FIELD, DomainError, InvalidInput, NotAllowed, RuleBroken
from core.pages import add_to_form, page_messages


class QuotaForm(forms.Form):
    fair_weight = forms.CharField(required=False)
    capacity = forms.CharField(required=False)
    cell = forms.CharField(required=False)


def test_it_puts_each_path_on_its_field_and_names_paths_the_form_lacks():
    form = QuotaForm({})
    form.is_valid()
    exc = InvalidInput(
        {
            "fair_weight": ["must be at most 1000"],
            "capacity.nvidia.com/gpu": ["whole devices only"],
            "preemption.reclaim": ["unknown policy"],
        }
    )
    add_to_form(form, exc)
    assert form.errors["fair_weight"] == ["must be at most 1000"]
    assert form.errors["capacity"] == ["capacity.nvidia.com/gpu: whole devices only"]
    assert form.errors["__all__"] == ["preemption.reclaim: unknown policy"]


def test_a_mapped_path_need_not_repeat_itself():
    form = QuotaForm({})
    form.is_valid()
    exc = InvalidInput({"quotas[0].nominal": ["would be 65"]})
    add_to_form(form, exc, lambda path: "cell", repeat_path=False)
    assert form.errors["cell"] == ["would be 65"]


def test_an_error_about_one_field_keeps_its_detail_as_written():
    form = QuotaForm({})
    form.is_valid()
    add_to_form(form, RuleBroken("give a team", code="invalid", field="team"))
    add_to_form(form, RuleBroken("too heavy", code="invalid", field="fair_weight"))
    assert form.errors["__all__"] == ["give a team"]
    assert form.errors["fair_weight"] == ["too heavy"]


def test_page_messages_are_one_line_per_field_or_the_detail():
    exc = InvalidInput({"decision": ["must be approve", "or reject"], NON_FIELD: ["stale"]})
    assert page_messages(exc) == ["decision: must be approve; or reject", "stale"]
    assert page_messages(NotAllowed("only admins")) == ["only admins"]


def test_the_first_field_leads_the_summary():
    exc = InvalidInput({"a": ["bad"], "b": ["worse"], "c": ["worst"]})
    assert (exc.code, exc.field, exc.status) == ("invalid", "a", 400)
    assert exc.detail == "a: bad (and 2 more fields)"


def test_an_undocumented_code_is_refused():
    with pytest.raises(ValueError, match="undocumented error code"):
        DomainError("no", code="made_up")
