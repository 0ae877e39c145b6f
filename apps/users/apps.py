from django.apps import AppConfig


class UsersConfig(AppConfig):
    """Administration of people: create, disable, re-enable, stop their notebooks."""

    name = "apps.users"
    label = "users"
    verbose_name = "Users"
