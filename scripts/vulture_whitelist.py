"""Names a framework calls or reads by reflection, for scripts/dead_code.py (vulture).

Each line is a use vulture cannot see. Django settings, model options, admin, forms and
serializer conventions are matched by pattern in dead_code.py; only the odd ones are here.
"""

# ruff: noqa: B018, F821

# DRF: the header of a 401, the router's API root, pagination of every list.
_.authenticate_header
_.include_root_view
_.include_format_suffixes
# A custom serializer field's rendering, called by DRF.
_.to_representation
_.page_size_query_param
_.max_page_size
# drf-spectacular: extensions register themselves by subclassing; a postprocessing hook's
# arguments are passed by keyword.
_.ApiTokenScheme
_.RejectUnknownFieldsSchema
_.target_class
_.match_subclasses
_.map_serializer
_.generator
# Django: a path converter (regex, to_python, to_url), the error handlers and the admin's
# login form read from the URLconf, a staticfiles finder's signature.
_.regex
_.to_python
_.to_url
_.handler400
_.handler403
_.handler404
_.handler500
_.login_form
_.ignore_patterns
# Django's own user fields, set on the demo's admin.
_.is_staff
_.is_superuser
# A view's name for Django's debug pages and the logs.
_.__qualname__
# The kubernetes client's configuration, read by its urllib3 pool.
_.connection_pool_maxsize
# socketserver and http.server options of the simulated API server.
_.daemon_threads
_.allow_reuse_address
_.block_on_close
_.protocol_version
_.server_version
_.close_connection
_.disable_nagle_algorithm
# A Kueue preemption policy users may choose: reached by its value, not its name.
_.LOWER_OR_NEWER_EQUAL_PRIORITY

# Left to issue 27's other points, which rewrite these modules: the workload extract's
# unread field (point 1) and the informer's run under the reports app's old task name
# (point 3). Remove these two lines with them.
_.gpu_resources
