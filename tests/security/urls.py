"""Every URL pattern the portal serves, read from the URL conf."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, get_resolver


def url_names() -> set[str]:
    """Pattern names (namespaced); unnamed patterns as ``route:<pattern>``."""
    return {name for name, _, _ in _walk(get_resolver().url_patterns, "", None)}


def url_views() -> dict[str, tuple[str, object]]:
    """Pattern name → (route, view callable)."""
    return {
        name: (route, view) for name, route, view in _walk(get_resolver().url_patterns, "", None)
    }


def _walk(patterns, prefix: str, namespace: str | None):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            inner = namespace
            if pattern.namespace:
                inner = f"{namespace}:{pattern.namespace}" if namespace else pattern.namespace
            yield from _walk(pattern.url_patterns, prefix + str(pattern.pattern), inner)
        elif isinstance(pattern, URLPattern):
            route = prefix + str(pattern.pattern)
            if pattern.name:
                name = f"{namespace}:{pattern.name}" if namespace else pattern.name
            else:
                name = f"route:{route}"
            yield name, route, pattern.callback
