"""The shared layer every feature app builds on: one error vocabulary (``errors``),
mapped once to API bodies (``api_errors``) and pages (``pages``), and the API's
strict input (``strict_input``).

It imports no feature app (``apps``) and nothing of ``portal``; ``tests/ops/test_layers.py``
checks that. Layers: core ← apps ← portal.
"""
