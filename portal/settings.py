"""Quartermaster settings: one module, every value from the environment.

``QM_ENV`` selects defaults: ``dev`` (the embedded default: SQLite, filesystem
broker, debug on, a fixed dev secret) or ``production`` (everything that matters
must be given; security headers on). See docs/configuration.md for every variable.
"""

from pathlib import Path

import dj_database_url

from kueuemodel import check_admission_fair_sharing
from portal.env import (
    ConfigError,
    env_bool,
    env_choice,
    env_float,
    env_int,
    env_json,
    env_list,
    env_namespace,
    env_namespace_patterns,
    env_networks,
    env_object_name,
    env_storage_size,
    env_str,
    env_template,
)

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
if IS_PRODUCTION and not ALLOWED_HOSTS:
    # Django would answer every request 400 and only say why in a log line.
    raise ConfigError("ALLOWED_HOSTS must be set when QM_ENV=production")
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
    "informer",
    "apps.accounts",
    "apps.queues",
    "apps.jobs",
    "apps.users",
    "apps.reports",
    "apps.notifications",
    "apps.whatif",
    "apps.live",
    # Last: the demo's management commands (it seeds every app; no models of its own).
    "portal.demo",
]

MIDDLEWARE = [
    "portal.observability.middleware.MetricsMiddleware",
    "portal.request_id.RequestIdMiddleware",
    "portal.http_errors.JsonErrorsMiddleware",
    "portal.http_errors.ApiBodyLimitMiddleware",
    # Before anything reads the body as JSON (the NUL guard, DRF), and before sign-in.
    "portal.json_depth.RefuseDeepJsonMiddleware",
    "portal.nul_guard.RefuseNulMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "portal.append_slash.ReadsOnlyAppendSlashMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "portal.urls"
# API paths answer CSRF failures as JSON errors; pages keep Django's HTML page.
CSRF_FAILURE_VIEW = "portal.http_errors.csrf_failure"
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
                "portal.context_processors.preparing",
            ],
            # Every date on every page goes through ``|when`` (core.dates): one format.
            "builtins": ["portal.templatetags.dates", "portal.templatetags.units"],
        },
    },
]


def _database(url: str) -> dict:
    # Persistent connections, checked before each request reuses one: a database
    # restart costs a reconnect, never a failed request (tests/faults).
    config = dj_database_url.parse(
        url, conn_max_age=env_int("QM_DB_CONN_MAX_AGE", 60), conn_health_checks=True
    )
    if config["ENGINE"] == "django.db.backends.postgresql":
        # The same backend with a health check that asks the socket, not the server.
        config["ENGINE"] = "portal.db.postgresql"
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
# A message a worker took but never acknowledged (it was killed) is handed out
# again after this long; longer than the longest task's time limit (the weekly report's
# 1800 s), which a system check (portal.checks) enforces at start-up.
BROKER_VISIBILITY_TIMEOUT = env_int("QM_BROKER_VISIBILITY_TIMEOUT_SECONDS", 3600)
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL
    CELERY_BROKER_TRANSPORT_OPTIONS: dict = {"visibility_timeout": BROKER_VISIBILITY_TIMEOUT}
else:
    # Embedded default: kombu's filesystem transport, no Redis needed.
    _broker_dir = DATA_DIR / "broker"
    for _folder in ("out", "control", "processed"):
        (_broker_dir / _folder).mkdir(parents=True, exist_ok=True)
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

# --- Caches -----------------------------------------------------------------------
# "default" lives in each web process: API rate limits and the status poll's renderings
# need no more, and cost no round trip. "shared" is one for all processes: sign-in
# failures counted by one gunicorn worker must hold in the others.
_LOCAL_CACHE = "django.core.cache.backends.locmem.LocMemCache"
CACHES = {
    "default": {"BACKEND": _LOCAL_CACHE},
    "shared": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "quartermaster",
    }
    if REDIS_URL
    else {"BACKEND": _LOCAL_CACHE, "LOCATION": "shared"},
}

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
# The namespace the portal itself runs in (the manifests fill it in from the pod's own);
# it is always protected, whatever QM_PROTECTED_NAMESPACES says.
QM_PORTAL_NAMESPACE = env_namespace("QM_PORTAL_NAMESPACE", "quartermaster")
# Namespaces no team may be given and the portal never writes into (core.namespaces);
# "*" matches any run of characters.
QM_PROTECTED_NAMESPACES = env_namespace_patterns("QM_PROTECTED_NAMESPACES", ["kube-*", "default"])
# How long one read of queues and workloads serves every viewer of the live views.
QM_LIVE_CACHE_SECONDS = env_float("QM_LIVE_CACHE_SECONDS", 3.0)

# --- What-if replays and start-time predictions ---------------------------------
# Whether the cluster's Kueue Configuration enables fair sharing (Kueue's default: off).
# Replays must match it: weights only matter, and preemption differs, when it is on.
QM_KUEUE_FAIR_SHARING = env_bool("QM_KUEUE_FAIR_SHARING", False)
# The admissionFairSharing block of the cluster's Kueue Configuration, as JSON (None: not
# configured). Quotes and replays order a fair-between-users queue's LocalQueues by it.
QM_KUEUE_ADMISSION_FAIR_SHARING = env_json(
    "QM_KUEUE_ADMISSION_FAIR_SHARING",
    "Kueue admissionFairSharing block",
    check_admission_fair_sharing,
    None,
)
QM_WHATIF_HISTORY_DAYS = env_int("QM_WHATIF_HISTORY_DAYS", 7)
QM_WHATIF_REPLAY_TIME_LIMIT_SECONDS = env_int("QM_WHATIF_REPLAY_TIME_LIMIT_SECONDS", 900)
# A replay's worker stamps it this often while it computes, and the sweep looks as often;
# a replay that missed QM_WHATIF_HEARTBEAT_MISSES stamps lost its worker, and the sweep
# fails its run: within (misses + 1) × interval of the worker's death, 60 s by default.
QM_WHATIF_HEARTBEAT_SECONDS = env_float("QM_WHATIF_HEARTBEAT_SECONDS", 10.0)
QM_WHATIF_HEARTBEAT_MISSES = env_int("QM_WHATIF_HEARTBEAT_MISSES", 5)

# --- Notebooks and batch jobs ----------------------------------------------------
# Where a notebook's "Open" goes: the ingress or proxy in front of notebook Services, as a
# template with {namespace}, {name} and {user}. Empty: the portal's own page saying what a
# configured cluster would open (the demo). A bad template stops start-up.
QM_NOTEBOOK_URL_TEMPLATE = env_template(
    "QM_NOTEBOOK_URL_TEMPLATE", ("namespace", "name", "user"), ""
)
# The storage class of the checkpoint volume the reconciler gives every team namespace
# (a PersistentVolumeClaim of QM_CHECKPOINT_VOLUME_SIZE), which batch pods mount at
# CHECKPOINT_PATH. Empty: no volume; pods mount QM_CHECKPOINT_CLAIM, an existing claim
# in the job's namespace, or else a scratch emptyDir that a restarted pod does not see.
QM_CHECKPOINT_STORAGE_CLASS = env_object_name("QM_CHECKPOINT_STORAGE_CLASS", "")
QM_CHECKPOINT_VOLUME_SIZE = env_storage_size("QM_CHECKPOINT_VOLUME_SIZE", "100Gi")
QM_CHECKPOINT_CLAIM = env_str("QM_CHECKPOINT_CLAIM", "")
# Status follows the cluster through watches (runs of this many seconds, resumed);
# 0: no watching, status only from the periodic sync.
QM_JOBS_WATCH = env_bool("QM_JOBS_WATCH", True)
# The level-based safety net under the watches (and the re-creation of lost objects).
QM_JOBS_SYNC_INTERVAL_SECONDS = env_int("QM_JOBS_SYNC_INTERVAL_SECONDS", 60)
# Prometheus with DCGM metrics, for idle culling; empty: notebooks are never culled.
PROMETHEUS_URL = env_str("PROMETHEUS_URL", "")
# How often idle culling looks (beat); a pool's grace after the warning is honoured to
# within this. `make run` looks every minute, so its demo cull shows within minutes.
QM_CULL_INTERVAL_SECONDS = env_int("QM_CULL_INTERVAL_SECONDS", 300)
QM_PROMETHEUS_TIMEOUT_SECONDS = env_float("QM_PROMETHEUS_TIMEOUT_SECONDS", 10.0)

# --- Reports (admission history, DCGM usage, chargeback) -------------------------
# PROMETHEUS_URL and QM_PROMETHEUS_TIMEOUT_SECONDS (above) are shared with the reports.
# Empty URLs: the report marks the utilisation / cost panels as lacking data.
OPENCOST_URL = env_str("OPENCOST_URL", "")
QM_PROMETHEUS_STEP_SECONDS = env_int("QM_PROMETHEUS_STEP_SECONDS", 300)
QM_REPORT_HALF_LIFE_HOURS = env_float("QM_REPORT_HALF_LIFE_HOURS", 168.0)
# The week in progress is rebuilt this often (beat); its page says when it was built.
QM_REPORT_REBUILD_MINUTES = env_int("QM_REPORT_REBUILD_MINUTES", 60)
QM_HISTORY_RECORDER = env_bool("QM_HISTORY_RECORDER", True)
QM_INFORMER_WATCH_SECONDS = env_int("QM_INFORMER_WATCH_SECONDS", 55)
QM_RECORDER_RELIST_SECONDS = env_int("QM_RECORDER_RELIST_SECONDS", 600)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "apps.accounts.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "portal.pagination.DefaultPagination",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "core.api_errors.exception_handler",
    # Serializers write datetimes in UTC through core.api_fields (whatever TIME_ZONE is);
    # this is the same form for any DateTimeField declared without it.
    "DATETIME_FORMAT": "%Y-%m-%dT%H:%M:%SZ",
    # Per-user and per-client-address ceilings so one script can't starve the portal.
    "DEFAULT_THROTTLE_CLASSES": ["portal.throttling.UserRate", "portal.throttling.AnonRate"],
}
# Peers whose X-Forwarded-For is believed (the ingress, a load balancer); gunicorn's
# forwarded_allow_ips follows it too. Empty: every client is its TCP peer.
QM_TRUSTED_PROXIES = env_networks("QM_TRUSTED_PROXIES", [])
API_RATE_USER = env_str("QM_API_RATE_USER", "6000/min")
API_RATE_ANON = env_str("QM_API_RATE_ANON", "120/min")
# Resolved API tokens stay in each web process at most this long; revocations and user
# changes empty the cache at once through PostgreSQL notifications. 0: look up every time.
QM_API_TOKEN_CACHE_SECONDS = env_int("QM_API_TOKEN_CACHE_SECONDS", 60)
SPECTACULAR_SETTINGS = {
    "TITLE": "Quartermaster API",
    "DESCRIPTION": "GPU quota policy, change requests and audit for Kueue clusters.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # Error responses on every operation, and links between them (portal/api_schema.py).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "portal.api_schema.postprocess",
    ],
    # Models with a field named "state" each get their own enum name in the schema.
    "ENUM_NAME_OVERRIDES": {
        "NotebookStateEnum": "apps.jobs.choices.NotebookState",
        "JobStateEnum": "apps.jobs.choices.JobState",
        "SweepStateEnum": "apps.jobs.choices.SweepState",
        "InferenceStateEnum": "apps.jobs.choices.InferenceState",
        "SuggestionStateEnum": "apps.whatif.choices.SuggestionState",
    },
}

# --- Sign-in lockout (apps.accounts.login_guard) -----------------------------------
# This many failed sign-ins within the window lock the username, or the client address,
# out for the lockout period. Per address it is higher: people share NATs and proxies.
QM_LOGIN_FAILURES_PER_ACCOUNT = env_int("QM_LOGIN_FAILURES_PER_ACCOUNT", 5)
QM_LOGIN_FAILURES_PER_ADDRESS = env_int("QM_LOGIN_FAILURES_PER_ADDRESS", 20)
QM_LOGIN_WINDOW_SECONDS = env_int("QM_LOGIN_WINDOW_SECONDS", 900)
QM_LOGIN_LOCKOUT_SECONDS = env_int("QM_LOGIN_LOCKOUT_SECONDS", 900)
for _name in (
    "QM_LOGIN_FAILURES_PER_ACCOUNT",
    "QM_LOGIN_FAILURES_PER_ADDRESS",
    "QM_LOGIN_WINDOW_SECONDS",
    "QM_LOGIN_LOCKOUT_SECONDS",
    "QM_REPORT_REBUILD_MINUTES",
    "QM_INFORMER_WATCH_SECONDS",
):
    if globals()[_name] < 1:
        raise ConfigError(f"{_name} must be at least 1")

# --- Single sign-on (portal.oidc) -------------------------------------------------
QM_OIDC_ENABLED = env_bool("QM_OIDC_ENABLED", False)
AUTHENTICATION_BACKENDS = ["django.contrib.auth.backends.ModelBackend"]
OIDC_RP_CLIENT_ID = env_str("OIDC_RP_CLIENT_ID", "")
OIDC_RP_CLIENT_SECRET = env_str("OIDC_RP_CLIENT_SECRET", "")
OIDC_OP_AUTHORIZATION_ENDPOINT = env_str("OIDC_OP_AUTHORIZATION_ENDPOINT", "")
OIDC_OP_TOKEN_ENDPOINT = env_str("OIDC_OP_TOKEN_ENDPOINT", "")
OIDC_OP_USER_ENDPOINT = env_str("OIDC_OP_USER_ENDPOINT", "")
OIDC_OP_JWKS_ENDPOINT = env_str("OIDC_OP_JWKS_ENDPOINT", "")
OIDC_RP_SIGN_ALGO = env_choice("OIDC_RP_SIGN_ALGO", ("RS256", "ES256", "HS256"), "RS256")
OIDC_RP_SCOPES = "openid email profile"
OIDC_GROUPS_CLAIM = env_str("QM_OIDC_GROUPS_CLAIM", "groups")
OIDC_GROUP_MAP = env_list("QM_OIDC_GROUP_MAP", [])
OIDC_CREATE_USER = True
if QM_OIDC_ENABLED:
    _missing = [
        name
        for name in (
            "OIDC_RP_CLIENT_ID",
            "OIDC_OP_AUTHORIZATION_ENDPOINT",
            "OIDC_OP_TOKEN_ENDPOINT",
        )
        if not globals()[name]
    ]
    if _missing:
        raise ConfigError(f"QM_OIDC_ENABLED needs {', '.join(_missing)}")
    from portal.oidc import parse_group_map

    try:
        parse_group_map(OIDC_GROUP_MAP)
    except ValueError as exc:
        raise ConfigError(f"QM_OIDC_GROUP_MAP: {exc}") from None
    INSTALLED_APPS.append("mozilla_django_oidc")
    AUTHENTICATION_BACKENDS.insert(0, "portal.oidc_backend.QuartermasterOIDCBackend")
    LOGIN_REDIRECT_URL_FAILURE = "/login/"

# --- Notifications (apps.notifications) ------------------------------------------
EMAIL_BACKEND = {
    "smtp": "django.core.mail.backends.smtp.EmailBackend",
    "console": "django.core.mail.backends.console.EmailBackend",
    "locmem": "django.core.mail.backends.locmem.EmailBackend",
}[
    env_choice(
        "QM_EMAIL_BACKEND", ("smtp", "console", "locmem"), "smtp" if IS_PRODUCTION else "console"
    )
]
EMAIL_HOST = env_str("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_TIMEOUT = 10
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "quartermaster@localhost")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# Where links in notifications point, e.g. https://gpu.example.org (empty: paths only).
PORTAL_URL = env_str("QM_PORTAL_URL", "")
# Webhook targets must be on these hosts (".example.org" allows subdomains). Empty: no webhooks.
WEBHOOK_ALLOWED_HOSTS = env_list("QM_WEBHOOK_ALLOWED_HOSTS", [])
WEBHOOK_TIMEOUT_SECONDS = env_float("QM_WEBHOOK_TIMEOUT_SECONDS", 5.0)
OUT_OF_SYNC_NOTIFY_MINUTES = env_int("QM_OUT_OF_SYNC_NOTIFY_MINUTES", 30)

# --- Metrics (portal.observability) ---------------------------------------------
# Empty: /metrics is open and the deployment must restrict who reaches it.
METRICS_TOKEN = env_str("QM_METRICS_TOKEN", "")
# 0: off. Workers run reconciles and notifications; Prometheus scrapes them here.
WORKER_METRICS_PORT = env_int("QM_WORKER_METRICS_PORT", 0)
# Read by prometheus-client itself; listed here so the configuration table names it.
PROMETHEUS_MULTIPROC_DIR = env_str("PROMETHEUS_MULTIPROC_DIR", "")

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
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
SESSION_COOKIE_SECURE = IS_PRODUCTION
CSRF_COOKIE_SECURE = IS_PRODUCTION
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
