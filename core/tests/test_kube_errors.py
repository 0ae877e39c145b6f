"""How API server errors read: a namespace being deleted is no missing permission."""

import json

from core.kube import _error

TERMINATING = {
    "kind": "Status",
    "apiVersion": "v1",
    "status": "Failure",
    "message": 'statefulsets.apps "nb-1" is forbidden: unable to create new content in '
    "namespace team-vision because it is being terminated",
    "reason": "Forbidden",
    "details": {
        "name": "nb-1",
        "group": "apps",
        "kind": "statefulsets",
        "causes": [
            {
                "reason": "NamespaceTerminating",
                "message": "namespace team-vision is being terminated",
                "field": "metadata.namespace",
            }
        ],
    },
    "code": 403,
}
DENIED = {
    "kind": "Status",
    "status": "Failure",
    "message": 'statefulsets.apps is forbidden: User "system:serviceaccount:q:q" cannot '
    'create resource "statefulsets" in API group "apps" in the namespace "team-vision"',
    "reason": "Forbidden",
    "details": {"group": "apps", "kind": "statefulsets"},
    "code": 403,
}


def test_a_terminating_namespace_is_transient_and_says_so():
    error = _error(403, json.dumps(TERMINATING).encode(), "create", "statefulsets.apps")
    assert error.transient
    assert "its namespace is being deleted" in error.describe()
    assert "RBAC" not in error.describe()


def test_a_denied_call_names_the_missing_permission():
    error = _error(403, json.dumps(DENIED).encode(), "create", "statefulsets.apps")
    assert not error.transient
    assert "grant that verb in its RBAC role" in error.describe()
