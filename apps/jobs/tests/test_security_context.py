"""No input can produce a privileged pod or a pod outside the team's namespace."""

import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apps.jobs import manifests
from apps.jobs.services import NotebookRequest, Principal, request_notebook
from core.errors import DomainError
from testkit.clients import api_as
from testkit.notebooks import IMAGE, notebook_body

text = st.text(alphabet=string.printable, max_size=40)
FORBIDDEN_POD_KEYS = {"hostNetwork", "hostPID", "hostIPC"}


def assert_restricted(pod: dict) -> None:
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    assert all(pod[key] is False for key in FORBIDDEN_POD_KEYS)
    assert pod["automountServiceAccountToken"] is False
    assert all(set(v) <= {"name", "emptyDir", "persistentVolumeClaim"} for v in pod["volumes"])
    assert "initContainers" not in pod
    (container,) = pod["containers"]
    sc = container["securityContext"]
    assert sc["allowPrivilegeEscalation"] is False and sc["privileged"] is False
    assert sc["capabilities"] == {"drop": ["ALL"]}
    assert sc["readOnlyRootFilesystem"] is True
    assert container["resources"]["requests"] == container["resources"]["limits"]


@given(
    image=text,
    cpu=text,
    memory=text,
    gpus=st.integers(0, 64),
    name=text,
    owner=text,
    base=text,
    selector=st.dictionaries(text, text, max_size=3),
)
def test_any_notebook_spec_renders_a_restricted_pod(
    image, cpu, memory, gpus, name, owner, base, selector
):
    spec = manifests.NotebookSpec(
        name=name,
        namespace="team-vision",
        team="vision",
        owner=owner,
        queue="interactive",
        priority_class="interactive",
        image=image,
        gpu_resource="nvidia.com/gpu",
        gpus=gpus,
        cpu=cpu,
        memory=memory,
        base_path=base,
        node_selector=selector,
    )
    statefulset, service = manifests.render_notebook(spec)
    assert statefulset["metadata"]["namespace"] == service["metadata"]["namespace"] == "team-vision"
    assert statefulset["spec"]["replicas"] == 1
    assert_restricted(statefulset["spec"]["template"]["spec"])


@given(
    command=st.lists(text, max_size=5),
    image=text,
    gpus=st.integers(1, 8),
    pods=st.integers(1, 64),
    checkpoint=text,
    interval=st.none() | st.integers(1, 10**6),
    resources=st.dictionaries(st.sampled_from(["cpu", "memory"]), text),
)
def test_any_job_spec_renders_a_restricted_suspended_job(
    command, image, gpus, pods, checkpoint, interval, resources
):
    spec = manifests.JobSpec(
        name="job-1",
        namespace="team-vision",
        team="vision",
        owner="x",
        queue="vision",
        priority_class="p2-standard",
        image=image,
        command=tuple(command),
        gpu_resource="nvidia.com/gpu",
        gpus_per_pod=gpus,
        pods=pods,
        resources=resources,
        checkpoint_dir=checkpoint,
        checkpoint_interval_seconds=interval,
    )
    job = manifests.render_job(spec)
    assert job["metadata"]["namespace"] == "team-vision"
    assert job["spec"]["suspend"] is True
    assert job["spec"]["parallelism"] == job["spec"]["completions"] == pods
    assert_restricted(job["spec"]["template"]["spec"])


pod_keys = st.sampled_from(
    [
        "privileged",
        "securityContext",
        "hostNetwork",
        "hostPath",
        "namespace",
        "volumes",
        "runAsUser",
        "capabilities",
        "podSpec",
        "nodeName",
        "serviceAccountName",
        "env",
    ]
)


@pytest.mark.django_db
@settings(
    max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None
)
@given(
    extra=st.dictionaries(
        pod_keys, st.one_of(st.booleans(), text, st.just({"path": "/"})), min_size=1, max_size=3
    )
)
def test_pod_fields_in_the_body_are_refused(scientist, pool, extra):
    response = api_as(scientist).post(
        "/api/v1/notebooks/", {**notebook_body(), **extra}, format="json"
    )
    assert response.status_code in (400, 409)
    if "namespace" in extra and len(extra) == 1:
        assert response.json()["code"] in ("namespace_not_allowed", "invalid")
    else:
        assert response.json()["code"] in ("unknown_field", "namespace_not_allowed", "invalid")


@pytest.mark.django_db
@settings(
    max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None
)
@given(namespace=text, team=text, display=text)
def test_a_notebook_only_ever_lands_in_the_users_team_namespace(
    scientist, pool, namespace, team, display
):
    spec = NotebookRequest(
        image=IMAGE, flavor="h100", namespace=namespace, team=team, display_name=display
    )
    try:
        outcome = request_notebook(scientist, spec, actor=Principal(scientist))
    except DomainError:
        return
    for obj in manifests.notebook_manifests(outcome.record):
        assert obj["metadata"]["namespace"] == "team-vision"
        if obj["kind"] == "StatefulSet":
            assert_restricted(obj["spec"]["template"]["spec"])
    outcome.record.delete()
