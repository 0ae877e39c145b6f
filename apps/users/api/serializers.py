"""Representations for /api/v1/users/. Rule checks live in the services, not here."""

from rest_framework import serializers

from apps.accounts.models import User
from core.bounds import TEXT_LIMIT
from core.roles import TeamRole
from core.strict_input import RejectUnknownFields


class UserSerializer(serializers.ModelSerializer):
    teams = serializers.SerializerMethodField()
    running_notebooks = serializers.IntegerField(read_only=True)
    last_sign_in = serializers.DateTimeField(source="last_login", read_only=True, allow_null=True)

    class Meta:
        model = User
        fields = [
            "username",
            "display_name",
            "email",
            "is_active",
            "is_platform_admin",
            "teams",
            "last_sign_in",
            "running_notebooks",
        ]

    def get_teams(self, user) -> dict[str, str]:
        """Team slug → role."""
        return {m.team.slug: m.role for m in user.memberships.all()}


class UserCreatedSerializer(UserSerializer):
    set_password_url = serializers.SerializerMethodField()

    class Meta(UserSerializer.Meta):
        fields = [*UserSerializer.Meta.fields, "set_password_url"]

    def get_set_password_url(self, user) -> str:
        """The one-time link to hand to the person; shown in this answer only."""
        return self.context["set_password_url"]


class UserCreateSerializer(RejectUnknownFields, serializers.Serializer):
    username = serializers.CharField(help_text="Letters, digits and @ . + - _, e.g. carol.smith")
    email = serializers.CharField(required=False, allow_blank=True, default="")
    display_name = serializers.CharField(required=False, allow_blank=True, default="")
    teams = serializers.DictField(
        child=serializers.ChoiceField(choices=TeamRole.choices),
        required=False,
        default=dict,
        help_text='Team slug → role, e.g. {"vision": "scientist"}',
    )


class DisableSerializer(RejectUnknownFields, serializers.Serializer):
    stop_notebooks = serializers.BooleanField(required=False, default=False)
    reason = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=TEXT_LIMIT
    )


class ReasonSerializer(RejectUnknownFields, serializers.Serializer):
    reason = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=TEXT_LIMIT
    )


class NotebooksStoppedSerializer(serializers.Serializer):
    notebooks_stopped = serializers.IntegerField()
