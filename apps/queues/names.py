"""Kubernetes naming rules, as pure predicates with the rule's wording."""

import re

DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
QUALIFIED_NAME = re.compile(
    r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
    r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$"
)
LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")

DNS_LABEL_RULE = (
    "must be a DNS-1123 label: at most 63 lowercase letters, digits or '-', "
    "starting and ending with a letter or digit"
)
DNS_SUBDOMAIN_RULE = (
    "must be a DNS-1123 subdomain: at most 253 lowercase letters, digits, '-' or '.', "
    "each part starting and ending with a letter or digit"
)
RESOURCE_NAME_RULE = "must be a qualified resource name such as cpu or nvidia.com/gpu"
LABEL_VALUE_RULE = (
    "must be a label value: at most 63 letters, digits, '-', '_' or '.', "
    "starting and ending with a letter or digit"
)


def dns_label_error(value: str) -> str | None:
    if len(value) > 63 or not DNS_LABEL.match(value):
        return DNS_LABEL_RULE
    return None


def dns_subdomain_error(value: str) -> str | None:
    if len(value) > 253 or not DNS_SUBDOMAIN.match(value):
        return DNS_SUBDOMAIN_RULE
    return None


def resource_name_error(value: str) -> str | None:
    name = value.rsplit("/", 1)[-1]
    if len(value) > 253 or len(name) > 63 or not QUALIFIED_NAME.match(value):
        return RESOURCE_NAME_RULE
    return None


def label_value_error(value: str) -> str | None:
    if len(value) > 63 or not LABEL_VALUE.match(value):
        return LABEL_VALUE_RULE
    return None


def label_key_error(value: str) -> str | None:
    return None if resource_name_error(value) is None else "must be a qualified label key"
