"""Quartermaster settings: one module, every value from the environment.

``QM_ENV`` selects defaults: ``dev`` (the embedded default: SQLite, filesystem
broker, debug on, a fixed dev secret) or ``production`` (everything that matters
must be given; security headers on). See docs/configuration.md for every variable.
"""

from pathlib import Path

import dj_database_url

from portal.env import ConfigError, env_bool, env_choice, env_float, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent

QM_ENV = env_choice("QM_ENV", ("dev", "production"), "dev")
IS_PRODUCTION = QM_ENV == "production"
DEBUG = env_bool("DEBUG", not IS_PRODUCTION)
DATA_DIR = Path(env_str("QM_DATA_DIR", str(BASE_DIR / "var")))
# The embedded default keeps its SQLite file and broker folders here.
DATA_DIR.mkdir(parents=True, exist_ok=True)

_DEV_SECRET = "dev-only-insecure-secret-key-do-not-use-in-production-0123456789"
SECRET_KEY = env_str("SECRET_KEY", _DEV_SECRET if not IS_PRODUCTION else None)
if not SECRET_KEY:
    raise ConfigError("SECRET_KEY must be set when QM_ENV=production")
if IS_PRODUCTION and (SECRET_KEY == _DEV_SECRET or len(SECRET_KEY) < 50):
    raise ConfigError("SECRET_KEY must be a unique value of at least 50 characters in production")

ALLOWED_HOSTS = env_list(
    "ALLOWED_HOSTS", [] if IS_PRODUCTION else ["localhost", "127.0.0.1", "[::1]", "testserver"]
)
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "apps.accounts",
    "apps.queues",
    "apps.jobs",
    "apps.reports",
]

MIDDLEWARE = [
    "portal.request_id.RequestIdMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "portal.urls"
WSGI_APPLICATION = "portal.wsgi.application"
AUTH_USER_MODEL = "accounts.User"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "queues:overview"
LOGOUT_REDIRECT_URL = "login"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "apps.accounts.context_processors.roles",
            ],
        },
    },
]


def _database(url: str) -> dict:
    config = dj_database_url.parse(url, conn_health_checks=True)
    if config["ENGINE"] == "django.db.backends.sqlite3":
        # IMMEDIATE takes SQLite's write lock at BEGIN, so two concurrent saves
        # serialise instead of both reading the same quota sums.
        config["OPTIONS"] = {"transaction_mode": "IMMEDIATE", "timeout": 20}
    return config


DATABASES = {"default": _database(env_str("DATABASE_URL", f"sqlite:///{DATA_DIR / 'db.sqlite3'}"))}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = env_str("TIME_ZONE", "UTC")
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
# In dev the finders serve static files; whitenoise reads STATIC_ROOT only after collectstatic.
WHITENOISE_USE_FINDERS = DEBUG
STATICFILES_DIRS = [BASE_DIR / "static"]
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    "portal.staticfinders.PlotlyFinder",
]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if IS_PRODUCTION
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# --- Celery -----------------------------------------------------------------
REDIS_URL = env_str("REDIS_URL", "")
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL
    CELERY_BROKER_TRANSPORT_OPTIONS: dict = {}
else:
    # Embedded default: kombu's filesystem transport, no Redis needed.
    _broker_dir = DATA_DIR / "broker"
    CELERY_BROKER_URL = "filesystem://"
    CELERY_RESULT_BACKEND = None
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "out"),
        "data_folder_out": str(_broker_dir / "out"),
        "control_folder": str(_broker_dir / "control"),
        "processed_folder": str(_broker_dir / "processed"),
        "store_processed": False,
    }
CELERY_TASK_ALWAYS_EAGER = False
CELERY_TASK_DEFAULT_QUEUE = "default"
# Queues by task module; a worker can be pointed at one queue with `-Q`.
CELERY_TASK_ROUTES = {"apps.*": {"queue": "default"}}
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TIMEZONE = "UTC"
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# --- Quartermaster ------------------------------------------------------------
CHANGE_REQUEST_TTL_DAYS = env_int("QM_CHANGE_REQUEST_TTL_DAYS", 14)
API_PAGE_SIZE = env_int("QM_API_PAGE_SIZE", 50)

# --- Cluster sync (the Kueue reconciler) ---------------------------------------
# Off for deployments without a cluster: nothing is rendered, triggered or written.
QM_CLUSTER_SYNC = env_bool("QM_CLUSTER_SYNC", True)
# Empty: the in-cluster service account.
KUBECONFIG = env_str("KUBECONFIG", "")
KUEUE_API_VERSION = env_choice("KUEUE_API_VERSION", ("v1beta2", "v1beta1"), "v1beta2")
QM_RECONCILE_INTERVAL_SECONDS = env_int("QM_RECONCILE_INTERVAL_SECONDS", 60)
QM_RECONCILE_DEBOUNCE_SECONDS = env_float("QM_RECONCILE_DEBOUNCE_SECONDS", 0.3)
QM_RECONCILE_BACKOFF_MAX_SECONDS = env_int("QM_RECONCILE_BACKOFF_MAX_SECONDS", 300)
QM_RECONCILE_CONCURRENCY = env_int("QM_RECONCILE_CONCURRENCY", 8)
QM_KUBE_TIMEOUT_SECONDS = env_float("QM_KUBE_TIMEOUT_SECONDS", 10.0)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "apps.accounts.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "portal.pagination.DefaultPagination",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "portal.api_errors.exception_handler",
    # Per-user and per-client-address ceilings so one script can't starve the portal.
    "DEFAULT_THROTTLE_CLASSES": ["portal.throttling.UserRate", "portal.throttling.AnonRate"],
}
API_RATE_USER = env_str("QM_API_RATE_USER", "6000/min")
API_RATE_ANON = env_str("QM_API_RATE_ANON", "120/min")
SPECTACULAR_SETTINGS = {
    "TITLE": "Quartermaster API",
    "DESCRIPTION": "GPU quota policy, change requests and audit for Kueue clusters.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
}

LOG_FORMAT = env_choice("LOG_FORMAT", ("plain", "json"), "plain")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "portal.logging.RequestIdFilter"}},
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
        "json": {"()": "portal.logging.JsonFormatter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": LOG_FORMAT,
            "filters": ["request_id"],
        }
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}

# --- Production hardening (all overridable, all on by default in production) --
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", IS_PRODUCTION)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000 if IS_PRODUCTION else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = IS_PRODUCTION
SECURE_HSTS_PRELOAD = IS_PRODUCTION
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
SESSION_COOKIE_SECURE = IS_PRODUCTION
CSRF_COOKIE_SECURE = IS_PRODUCTION
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
