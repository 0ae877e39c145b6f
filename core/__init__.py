"""The shared layer every feature app builds on.

- ``errors``: the one error vocabulary (``DomainError`` and its kinds), mapped once to
  API bodies (``api_errors``) and to form errors and page messages (``pages``);
- ``permissions``: who may do what, on the team roles of ``roles``;
- ``visibility``: the API mixin that scopes every queryset with ``visible_to``;
- ``audit``: ``record_audit``, the one way any app writes the audit trail;
- ``strict_input``: API bodies accept only the fields they declare.

It imports no feature app (``apps``) and nothing of ``portal``; ``tests/ops/test_layers.py``
checks that. Layers: core ← apps ← portal.
"""
