"""Representations for /api/v1/. Rule checks live in the services, not here."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.queues.models import (
    AuditEntry,
    ChangeRequest,
    Cohort,
    PriorityTier,
    Queue,
    ResourceFlavor,
    Team,
)
from apps.queues.quantity import format_units
from apps.queues.snapshots import queue_snapshot
from core.api_fields import ModelSerializer
from core.bounds import TEXT_LIMIT
from core.roles import TeamRole
from core.strict_input import RejectUnknownFields


class TeamSerializer(ModelSerializer):
    namespaces = serializers.SlugRelatedField(many=True, read_only=True, slug_field="name")
    queues = serializers.SlugRelatedField(many=True, read_only=True, slug_field="name")

    class Meta:
        model = Team
        fields = ["slug", "display_name", "cost_center", "namespaces", "queues"]


class TeamCreateSerializer(RejectUnknownFields, serializers.Serializer):
    slug = serializers.CharField()
    display_name = serializers.CharField()
    cost_center = serializers.CharField(required=False, allow_blank=True, default="")
    namespaces = serializers.ListField(child=serializers.CharField())


class TeamUpdateSerializer(RejectUnknownFields, serializers.Serializer):
    display_name = serializers.CharField(max_length=200)
    cost_center = serializers.CharField(max_length=63, required=False, allow_blank=True)


class MemberSerializer(serializers.Serializer):
    username = serializers.CharField(source="user.username")
    role = serializers.CharField()


class MemberAddSerializer(RejectUnknownFields, serializers.Serializer):
    username = serializers.CharField(max_length=150)
    role = serializers.ChoiceField(choices=TeamRole.choices)


class MemberRoleSerializer(RejectUnknownFields, serializers.Serializer):
    role = serializers.ChoiceField(choices=TeamRole.choices)


class FlavorSerializer(ModelSerializer):
    capacity = serializers.SerializerMethodField()

    class Meta:
        model = ResourceFlavor
        fields = [
            "name",
            "gpu_model",
            "description",
            "node_labels",
            "node_taints",
            "tolerations",
            "topology_levels",
            "capacity",
        ]

    def get_capacity(self, flavor: ResourceFlavor) -> dict[str, str]:
        return {c.resource: c.capacity for c in flavor.capacities.all()}


@extend_schema_field(OpenApiTypes.STR)
class QuantityField(serializers.Field):
    """A read-only Decimal shown as a plain number string ("8", "0.5")."""

    def __init__(self, **kwargs):
        super().__init__(read_only=True, **kwargs)

    def to_representation(self, value):
        return format_units(value)


class CapacityRowSerializer(serializers.Serializer):
    """One flavor × resource of the overview's capacity table."""

    flavor = serializers.CharField()
    resource = serializers.CharField()
    capacity = QuantityField()
    reserved = QuantityField(
        help_text="Nominal quota of every ClusterQueue on the flavor: team queues, the "
        "notebook pool and foreign ClusterQueues."
    )
    reserved_by_pool = QuantityField()
    reserved_by_foreign = QuantityField()
    unallocated = QuantityField(help_text="capacity − reserved, never below 0.")
    lendable = QuantityField(help_text="What queues in cohorts lend (nominal or lendingLimit).")


class FlavorWriteSerializer(RejectUnknownFields, serializers.Serializer):
    name = serializers.CharField()
    gpu_model = serializers.CharField(required=False, allow_blank=True, default="")
    description = serializers.CharField(required=False, allow_blank=True, default="")
    node_labels = serializers.DictField(child=serializers.CharField(), required=False, default=dict)
    node_taints = serializers.ListField(child=serializers.DictField(), required=False, default=list)
    tolerations = serializers.ListField(child=serializers.DictField(), required=False, default=list)
    topology_levels = serializers.ListField(
        child=serializers.DictField(child=serializers.CharField()),
        required=False,
        default=list,
        help_text="Widest first, e.g. [{name: rack, node_label: example.com/rack}, "
        "{name: host, node_label: kubernetes.io/hostname}]; fixed once set.",
    )
    capacity = serializers.DictField(child=serializers.CharField())
    reason = serializers.CharField(required=False, allow_blank=True, default="")
    capacity_override_reason = serializers.CharField(required=False, allow_blank=True, default="")


class CohortSerializer(ModelSerializer):
    parent = serializers.SlugRelatedField(
        slug_field="name", queryset=Cohort.objects.all(), allow_null=True, required=False
    )

    class Meta:
        model = Cohort
        fields = ["name", "parent", "fair_weight", "description"]


class CohortWriteSerializer(RejectUnknownFields, serializers.Serializer):
    name = serializers.CharField()
    parent = serializers.CharField(required=False, allow_null=True, default=None)
    fair_weight = serializers.CharField(required=False, default="1")
    description = serializers.CharField(required=False, allow_blank=True, default="")


class PriorityTierSerializer(ModelSerializer):
    class Meta:
        model = PriorityTier
        fields = ["name", "value", "description"]


class PriorityTierWriteSerializer(RejectUnknownFields, serializers.Serializer):
    """Body of POST and PUT/PATCH by name; the service checks the rules."""

    name = serializers.CharField()
    value = serializers.IntegerField()
    description = serializers.CharField(required=False, allow_blank=True, default="")


class QuotaSerializer(RejectUnknownFields, serializers.Serializer):
    flavor = serializers.CharField()
    resource = serializers.CharField()
    nominal = serializers.CharField()
    borrowing_limit = serializers.CharField(required=False, allow_null=True, allow_blank=True)
    lending_limit = serializers.CharField(required=False, allow_null=True, allow_blank=True)


class PreemptionSerializer(RejectUnknownFields, serializers.Serializer):
    reclaim_within_cohort = serializers.CharField(required=False)
    within_cluster_queue = serializers.CharField(required=False)
    borrow_within_cohort = serializers.CharField(required=False)
    borrow_max_priority_threshold = serializers.IntegerField(required=False, allow_null=True)


class QueueSerializer(ModelSerializer):
    """A queue's policy in the same shape the write endpoints accept."""

    team = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True)
    cohort = serializers.SlugRelatedField(slug_field="name", read_only=True, allow_null=True)
    preemption = serializers.SerializerMethodField()
    quotas = serializers.SerializerMethodField()

    class Meta:
        model = Queue
        fields = [
            "id",
            "name",
            "team",
            "cohort",
            "description",
            "fair_weight",
            "queueing_strategy",
            "stop_policy",
            "fair_between_users",
            "preemption",
            "quotas",
            "version",
            "updated_at",
        ]

    def get_preemption(self, queue: Queue) -> PreemptionSerializer:
        return queue_snapshot(queue)["preemption"]

    def get_quotas(self, queue: Queue) -> QuotaSerializer(many=True):
        return queue_snapshot(queue)["quotas"]


class QueuePolicyWriteSerializer(RejectUnknownFields, serializers.Serializer):
    """Body of PUT/PATCH /queues/{id}/ and POST /queues/{id}/preview/."""

    version = serializers.IntegerField(help_text="The version you edited; a stale one gets 409.")
    cohort = serializers.CharField(required=False, allow_null=True, allow_blank=True)
    fair_weight = serializers.CharField(required=False)
    queueing_strategy = serializers.CharField(required=False)
    stop_policy = serializers.CharField(required=False)
    fair_between_users = serializers.BooleanField(
        required=False, help_text="Team queues only: a LocalQueue per member, ordered by usage."
    )
    preemption = PreemptionSerializer(required=False)
    quotas = QuotaSerializer(many=True, required=False)
    reason = serializers.CharField(required=False, allow_blank=True, default="")
    capacity_override_reason = serializers.CharField(required=False, allow_blank=True, default="")

    POLICY_FIELDS = (
        "cohort",
        "fair_weight",
        "queueing_strategy",
        "stop_policy",
        "fair_between_users",
        "preemption",
        "quotas",
    )

    def proposal(self) -> dict:
        data = self.validated_data
        proposal = {k: data[k] for k in self.POLICY_FIELDS if k in data}
        if proposal.get("cohort") == "":
            proposal["cohort"] = None
        return proposal


class QueueCreateSerializer(RejectUnknownFields, serializers.Serializer):
    name = serializers.CharField()
    team = serializers.SlugRelatedField(
        slug_field="slug", queryset=Team.objects.all(), allow_null=True, required=False
    )
    description = serializers.CharField(required=False, allow_blank=True, default="")
    reason = serializers.CharField(required=False, allow_blank=True, default="")


class ChangeRequestSerializer(ModelSerializer):
    queue = serializers.SlugRelatedField(slug_field="name", read_only=True)
    requested_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    decided_by = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )

    class Meta:
        model = ChangeRequest
        fields = [
            "id",
            "queue",
            "requested_by",
            "created_at",
            "status",
            "base_version",
            "changes",
            "beyond_envelope",
            "reason",
            "decided_by",
            "decided_at",
            "decision_comment",
            "applied_version",
        ]


class DecisionSerializer(RejectUnknownFields, serializers.Serializer):
    # The services bound them too; declared here as well because reject reads no
    # capacity_override_reason, and an ignored field must not take any size either.
    comment = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=TEXT_LIMIT
    )
    capacity_override_reason = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=TEXT_LIMIT
    )


class AuditEntrySerializer(ModelSerializer):
    team = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True)

    class Meta:
        model = AuditEntry
        fields = [
            "id",
            "at",
            "actor_name",
            "action",
            "team",
            "object_type",
            "object_id",
            "object_repr",
            "before",
            "after",
            "changes",
            "reason",
            "change_request",
        ]


class EnvelopeLimitSerializer(RejectUnknownFields, serializers.Serializer):
    flavor = serializers.CharField()
    resource = serializers.CharField()
    max_nominal = serializers.CharField()
    max_borrowing = serializers.CharField(required=False, allow_null=True, allow_blank=True)


class EnvelopeSerializer(RejectUnknownFields, serializers.Serializer):
    min_weight = serializers.CharField(required=False, allow_null=True, allow_blank=True)
    max_weight = serializers.CharField(required=False, allow_null=True, allow_blank=True)
    limits = EnvelopeLimitSerializer(many=True, required=False, default=list)
    reason = serializers.CharField(required=False, allow_blank=True, default="", write_only=True)
