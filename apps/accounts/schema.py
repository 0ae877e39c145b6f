"""Describe our token authentication in the OpenAPI schema."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class ApiTokenScheme(OpenApiAuthenticationExtension):
    target_class = "apps.accounts.authentication.ApiTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": (
                "`Token <key>` (or `Bearer <key>`). Create a personal token on the portal's "
                "*API tokens* page (`/tokens/`); it expires, and only its hash is stored."
            ),
        }
