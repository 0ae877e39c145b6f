"""Live views as JSON under /api/v1/live/: what the pages show, for their script and for tools.

The serializers document the answers in the OpenAPI schema; the bodies come from
``read`` as they are.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.decorators import api_view
from rest_framework.response import Response

from apps.live import read
from core.api_fields import UtcDateTimeField


class LiveStateSerializer(serializers.Serializer):
    state = serializers.CharField(
        help_text='"ok", or "unreachable": the data (if any) is the last snapshot'
    )
    fetched_at = UtcDateTimeField(allow_null=True, help_text="when the cluster was read")
    unreachable_since = UtcDateTimeField(allow_null=True)
    detail = serializers.CharField(help_text="why the cluster did not answer, else empty")


class LiveFlavorUseSerializer(serializers.Serializer):
    flavor = serializers.CharField()
    resource = serializers.CharField()
    nominal = serializers.CharField()
    in_use = serializers.CharField(help_text="quota reserved by workloads now")
    borrowed = serializers.CharField(help_text="use above nominal, taken from the cohort")
    lent = serializers.CharField(
        help_text="this queue's idle lendable quota that others in its cohort borrow now "
        "(the cohort's borrowing spread over lenders by their idle lendable quota)"
    )


class LivePodSetFlavorsSerializer(serializers.Serializer):
    pod_set = serializers.CharField()
    count = serializers.IntegerField(allow_null=True)
    flavors = serializers.DictField(child=serializers.CharField(), help_text="resource → flavor")


class LiveWorkloadRowSerializer(serializers.Serializer):
    namespace = serializers.CharField()
    name = serializers.CharField()
    uid = serializers.CharField()
    created = serializers.CharField()
    local_queue = serializers.CharField()
    cluster_queue = serializers.CharField()
    priority = serializers.IntegerField()
    state = serializers.CharField(
        help_text="admitted, quota-reserved, pending, evicted (stopping) or finished"
    )
    position = serializers.IntegerField(
        allow_null=True, help_text="1-based (1 is admitted next), in the ClusterQueue"
    )
    waiting_reason = serializers.CharField()
    requests = serializers.DictField(child=serializers.CharField())
    flavors = LivePodSetFlavorsSerializer(many=True)


class LiveQueueSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="the ClusterQueue")
    cohort = serializers.CharField()
    active = serializers.BooleanField()
    active_reason = serializers.CharField()
    pending_workloads = serializers.IntegerField()
    reserving_workloads = serializers.IntegerField()
    admitted_workloads = serializers.IntegerField()
    local_namespaces = serializers.ListField(child=serializers.CharField())
    flavors = LiveFlavorUseSerializer(many=True)
    pending_requests = serializers.DictField(child=serializers.CharField())
    admitted = LiveWorkloadRowSerializer(
        many=True, help_text="the viewer's workloads holding quota"
    )
    waiting = LiveWorkloadRowSerializer(many=True, help_text="the viewer's waiting workloads")
    chart = serializers.DictField(
        help_text="a Plotly figure (data, layout) of the flavors' GPUs: nominal, in use, "
        "borrowed, lent, and what waits"
    )


class LiveDomainSerializer(serializers.Serializer):
    domain = serializers.CharField(help_text="its label values, widest level first: b1/r2")
    allocatable = serializers.IntegerField(help_text="GPUs its nodes can hold")
    in_use = serializers.IntegerField(help_text="GPUs requested by the pods bound to its nodes")
    free = serializers.IntegerField()


class LiveTopologyLevelSerializer(serializers.Serializer):
    level = serializers.CharField(help_text="the name the admin gave the level: rack")
    node_label = serializers.CharField()
    domains = LiveDomainSerializer(many=True)
    chart = serializers.DictField(
        help_text="a Plotly figure (data, layout): per domain, GPUs in use and free, stacked"
    )


class LiveTopologyFlavorSerializer(serializers.Serializer):
    flavor = serializers.CharField()
    levels = LiveTopologyLevelSerializer(many=True, help_text="widest first")


class LiveDomainWaitSerializer(serializers.Serializer):
    namespace = serializers.CharField()
    name = serializers.CharField()
    cluster_queue = serializers.CharField()
    pod_set = serializers.CharField()
    pods = serializers.IntegerField()
    flavor = serializers.CharField()
    level = serializers.CharField()
    needs = serializers.IntegerField(help_text="GPUs the pod set needs inside one domain")
    freest_domain = serializers.CharField()
    freest_free = serializers.IntegerField(help_text="free GPUs of the freest domain")
    summary = serializers.CharField()


class LiveTopologySerializer(serializers.Serializer):
    flavors = LiveTopologyFlavorSerializer(many=True)
    waiting = LiveDomainWaitSerializer(
        many=True, help_text="the viewer's waiting workloads that require one domain of a level"
    )


class LiveQueuesSerializer(LiveStateSerializer):
    queues = LiveQueueSerializer(many=True)
    topology = LiveTopologySerializer(help_text="free GPUs per topology domain")


class LivePreemptorSerializer(serializers.Serializer):
    uid = serializers.CharField()
    namespace = serializers.CharField()
    name = serializers.CharField(help_text="empty outside the viewer's namespaces")
    known = serializers.BooleanField(help_text="false: the preemptor no longer exists")
    visible = serializers.BooleanField()


class LivePreemptionSerializer(serializers.Serializer):
    at = serializers.CharField()
    reason = serializers.CharField()
    message = serializers.CharField()
    preemptor = LivePreemptorSerializer()


class LiveVictimSerializer(serializers.Serializer):
    namespace = serializers.CharField()
    name = serializers.CharField(help_text="empty outside the viewer's namespaces")
    at = serializers.CharField()
    visible = serializers.BooleanField()
    exists = serializers.BooleanField()


class LiveConditionSerializer(serializers.Serializer):
    type = serializers.CharField()
    status = serializers.CharField()
    reason = serializers.CharField()
    message = serializers.CharField()
    at = serializers.CharField()


class LiveEventSerializer(serializers.Serializer):
    type = serializers.CharField()
    reason = serializers.CharField()
    message = serializers.CharField()
    at = serializers.CharField()
    count = serializers.IntegerField()


class LiveWorkloadDetailSerializer(serializers.Serializer):
    namespace = serializers.CharField()
    name = serializers.CharField()
    uid = serializers.CharField()
    created = serializers.CharField()
    owner = serializers.DictField(child=serializers.CharField())
    local_queue = serializers.CharField()
    cluster_queue = serializers.CharField()
    priority = serializers.IntegerField()
    state = serializers.CharField()
    conditions = LiveConditionSerializer(many=True)
    events = LiveEventSerializer(many=True)
    admission = LivePodSetFlavorsSerializer(many=True)
    preempted_by = LivePreemptionSerializer(many=True)
    preempted = LiveVictimSerializer(many=True, help_text="workloads this one preempted")


class LiveWorkloadAnswerSerializer(LiveStateSerializer):
    workload = LiveWorkloadDetailSerializer(allow_null=True)


@extend_schema(responses={200: LiveQueuesSerializer})
@api_view(["GET"])
def live_queues(request):
    """Queues the caller submits to (admins: all) with quota use now, and their workloads."""
    return Response(read.live_queues(request.user))


@extend_schema(responses={200: LiveWorkloadAnswerSerializer})
@api_view(["GET"])
def workload(request, namespace: str, name: str):
    """One Workload in one of the caller's namespaces: conditions, events, preemptions."""
    return Response(read.workload_detail(request.user, namespace, name))
