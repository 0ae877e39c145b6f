"""Every URL the portal serves × every persona, generated from the URL conf.

``test_every_url_pattern_has_an_expectation`` fails when a pattern is added
without a row here, so a new page or endpoint cannot ship unreviewed. Rows give
the status per persona, in ``ROLES`` order. ``ANON`` rows (for apps whose owners
have not filled in their matrix yet) only check that anonymous callers and
tokens on pages are refused.
"""

from __future__ import annotations

import pytest
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from rest_framework.test import APIClient

from apps.accounts.services import issue_api_token
from apps.jobs.services import JobRequest, NotebookRequest, Principal, request_notebook, submit_job
from apps.jobs.services.inference import InferenceRequest, request_inference_service
from apps.jobs.services.sweeps import SweepRequest, submit_sweep
from apps.queues import services
from apps.queues.models import AuditEntry
from apps.reports.services import build_weekly_report
from apps.whatif.choices import SuggestionState
from apps.whatif.models import PolicySuggestion
from apps.whatif.services import request_whatif
from core.roles import TeamRole
from testkit.factories import UserFactory, quota, set_policy
from testkit.fixtures.inference import SERVING_IMAGE
from testkit.notebooks import IMAGE
from testkit.promdata import WEEK
from tests.security.urls import url_names

ROLES = ("anonymous", "scientist", "other_lead", "lead", "admin", "launcher")
L, U = 302, 401  # pages send anonymous callers to the login form; the API asks for credentials
T = 401  # a token client on a page gets the API's JSON 401, never the login form
ANON = "anonymous-only"
OPEN = (200,) * 6
ADMIN_PAGE = (L, 403, 403, 403, 200, T)  # administration pages
ADMIN_POST = (L, 403, 403, 403, 302, T)  # … and their forms: saved, then redirected

POLICY = "policy"
FORM = "form"
NOTEBOOK = {"image": IMAGE, "flavor": "h100", "gpus": 1}
FOR_SCIENTIST = {**NOTEBOOK, "user": "scientist"}
JOB = {"template": "pytorch-train", "flavor": "h100"}
SWEEP = {**JOB, "grid": {"seed": [1, 2, 3]}}
NEVER_FITS = {**JOB, "pods": 64}  # more than vision or nlp could ever borrow
LAUNCHER = {"user": "launcher-bot", "name": "hub2", "days": "30", "teams": ["vision"]}
WHATIF = {"draft": {"vision": {"fair_weight": "2"}}}
INFERENCE = {"flavor": "h100", "image": SERVING_IMAGE, "replicas": 2}

# name → [(method, url template, body, statuses per role | ANON)]
MATRIX: dict[str, list[tuple]] = {
    "healthz": [("get", "/healthz", None, OPEN)],
    "readyz": [("get", "/readyz", None, OPEN)],
    # With QM_METRICS_TOKEN set, no user credential opens /metrics.
    "metrics": [("get", "/metrics", None, (U,) * 6)],
    "login": [("get", "/login/", None, OPEN)],
    "logout": [("post", "/logout/", None, (L, L, L, L, L, T))],
    "api-schema": [("get", "/api/schema/", None, OPEN)],
    "api-docs": [("get", "/api/docs/", None, OPEN)],
    "api-root": [("get", "/api/v1/", None, (U, 200, 200, 200, 200, 200))],
    # --- quota pages: a launcher token is not a session, so pages refuse it ------
    "queues:overview": [("get", "/", None, (L, 200, 200, 200, 200, T))],
    "queues:team": [("get", "/teams/vision/", None, (L, 200, 200, 200, 200, T))],
    "queues:team-audit": [("get", "/teams/vision/audit/", None, (L, 200, 404, 200, 200, T))],
    "queues:queue": [("get", "/queues/{queue}/", None, (L, 200, 200, 200, 200, T))],
    "queues:queue-edit": [
        ("get", "/queues/{queue}/edit/", None, (L, 403, 403, 200, 200, T)),
        ("post", "/queues/{queue}/edit/", FORM, (L, 403, 403, 200, 200, T)),
    ],
    "queues:change-requests": [("get", "/change-requests/", None, (L, 200, 200, 200, 200, T))],
    "queues:change-request": [("get", "/change-requests/{cr}/", None, (L, 200, 404, 200, 200, T))],
    # Who may neither decide nor withdraw is refused before the decision is read.
    "queues:change-request-decide": [
        (
            "post",
            "/change-requests/{cr}/decide/",
            {"decision": "reject", "comment": "no"},
            (L, 403, 404, 403, 302, T),
        ),
        ("post", "/change-requests/{cr}/decide/", {"decision": "?"}, (L, 403, 404, 302, 302, T)),
    ],
    "queues:audit": [("get", "/audit/", None, (L, 403, 403, 403, 200, T))],
    "queues:cluster-sync": [("get", "/cluster/", None, (L, 403, 403, 403, 200, T))],
    "queues:cluster-import": [("post", "/cluster/import/", {}, (L, 403, 403, 403, 302, T))],
    "queues:cluster-adopt": [
        (
            "post",
            "/cluster/adopt/",
            {"namespace": "team-vision", "reason": "handed over"},
            (L, 403, 403, 403, 302, T),
        ),
    ],  # fmt: skip
    # --- administration pages: platform admins only ({sci} is vision's scientist) -----
    "queues:admin": [("get", "/administration/", None, ADMIN_PAGE)],
    "queues:admin-team-new": [
        ("get", "/administration/teams/", None, ADMIN_PAGE),
        ("post", "/administration/teams/", {"slug": "speech", "display_name": "S"}, ADMIN_POST),
    ],
    "queues:admin-team": [
        ("get", "/administration/teams/vision/", None, ADMIN_PAGE),
        ("post", "/administration/teams/vision/", {"display_name": "Vision 2"}, ADMIN_POST),
    ],
    "queues:admin-envelope": [
        ("get", "/administration/teams/vision/envelope/", None, ADMIN_PAGE),
        ("post", "/administration/teams/vision/envelope/", {"max_weight": "3"}, ADMIN_POST),
    ],
    "queues:admin-member-add": [
        (
            "post",
            "/administration/teams/vision/members/add/",
            {"username": "otherlead", "role": "scientist"},
            ADMIN_POST,
        )
    ],
    "queues:admin-member-role": [
        (
            "post",
            "/administration/teams/vision/members/{sci}/role/",
            {"role": "lead"},
            ADMIN_POST,
        )
    ],
    "queues:admin-member-remove": [
        ("post", "/administration/teams/vision/members/{sci}/remove/", {}, ADMIN_POST)
    ],
    "queues:admin-flavor-new": [
        ("get", "/administration/flavors/", None, ADMIN_PAGE),
        (
            "post",
            "/administration/flavors/",
            {
                "name": "l4",
                "capacity": "nvidia.com/gpu=8",
                "node_labels": "pool=l4",
                "topology_levels": "rack=example.com/rack\nhost=kubernetes.io/hostname",
            },
            ADMIN_POST,
        ),
    ],
    "queues:admin-flavor": [
        ("get", "/administration/flavors/h100/", None, ADMIN_PAGE),
        ("post", "/administration/flavors/h100/", {"capacity": "nvidia.com/gpu=72"}, ADMIN_POST),
    ],
    "queues:admin-cohort-new": [
        ("get", "/administration/cohorts/", None, ADMIN_PAGE),
        ("post", "/administration/cohorts/", {"name": "extra", "fair_weight": "1"}, ADMIN_POST),
    ],
    "queues:admin-cohort": [
        ("get", "/administration/cohorts/research/", None, ADMIN_PAGE),
        ("post", "/administration/cohorts/research/", {"fair_weight": "2"}, ADMIN_POST),
    ],
    "queues:admin-tier-new": [
        ("get", "/administration/tiers/", None, ADMIN_PAGE),
        ("post", "/administration/tiers/", {"name": "p9", "value": "1"}, ADMIN_POST),
    ],
    "queues:admin-tier": [
        ("get", "/administration/tiers/p2-standard/", None, ADMIN_PAGE),
        ("post", "/administration/tiers/p2-standard/", {"value": "150"}, ADMIN_POST),
    ],
    # --- quota API: the launcher acts as its own user, a member of no team --------
    "team-list": [
        ("get", "/api/v1/teams/", None, (U, 200, 200, 200, 200, 200)),
        (
            "post",
            "/api/v1/teams/",
            {"slug": "new", "display_name": "N", "namespaces": ["team-new"]},
            (U, 403, 403, 403, 201, 403),
        ),
    ],
    "team-detail": [
        ("get", "/api/v1/teams/vision/", None, (U, 200, 200, 200, 200, 200)),
        ("patch", "/api/v1/teams/vision/", {"display_name": "V"}, (U, 403, 403, 403, 200, 403)),
    ],
    "team-members": [
        (
            "post",
            "/api/v1/teams/vision/members/",
            {"username": "otherlead", "role": "scientist"},
            (U, 403, 403, 403, 201, 403),
        )
    ],
    "team-member": [
        (
            "put",
            "/api/v1/teams/vision/members/scientist/",
            {"role": "lead"},
            (U, 403, 403, 403, 200, 403),
        ),
        ("delete", "/api/v1/teams/vision/members/scientist/", None, (U, 403, 403, 403, 204, 403)),
    ],
    "team-envelope": [
        ("get", "/api/v1/teams/vision/envelope/", None, (U, 200, 200, 200, 200, 200)),
        (
            "put",
            "/api/v1/teams/vision/envelope/",
            {"max_weight": "3"},
            (U, 403, 403, 403, 200, 403),
        ),
    ],
    "flavor-list": [
        ("get", "/api/v1/flavors/", None, (U, 200, 200, 200, 200, 200)),
        (
            "post",
            "/api/v1/flavors/",
            {"name": "l4", "capacity": {"nvidia.com/gpu": "8"}},
            (U, 403, 403, 403, 201, 403),
        ),
    ],
    "flavor-detail": [
        ("get", "/api/v1/flavors/h100/", None, (U, 200, 200, 200, 200, 200)),
        (
            "put",
            "/api/v1/flavors/h100/",
            {"capacity": {"nvidia.com/gpu": "72"}},
            (U, 403, 403, 403, 200, 403),
        ),
        (
            "patch",
            "/api/v1/flavors/h100/",
            {"gpu_model": "NVIDIA H100 80GB"},
            (U, 403, 403, 403, 200, 403),
        ),
    ],
    # Capacity figures are aggregate: everyone signed in sees the same table.
    "capacity-list": [("get", "/api/v1/capacity/", None, (U, 200, 200, 200, 200, 200))],
    "cohort-list": [
        ("get", "/api/v1/cohorts/", None, (U, 200, 200, 200, 200, 200)),
        ("post", "/api/v1/cohorts/", {"name": "extra"}, (U, 403, 403, 403, 201, 403)),
    ],
    "cohort-detail": [
        ("get", "/api/v1/cohorts/research/", None, (U, 200, 200, 200, 200, 200)),
        ("put", "/api/v1/cohorts/research/", {"fair_weight": "2"}, (U, 403, 403, 403, 200, 403)),
        ("patch", "/api/v1/cohorts/research/", {"description": "x"}, (U, 403, 403, 403, 200, 403)),
    ],
    "priority-tier-list": [
        ("get", "/api/v1/priority-tiers/", None, (U, 200, 200, 200, 200, 200)),
        (
            "post",
            "/api/v1/priority-tiers/",
            {"name": "p9", "value": 1},
            (U, 403, 403, 403, 201, 403),
        ),
    ],
    "priority-tier-detail": [
        ("get", "/api/v1/priority-tiers/p2-standard/", None, (U, 200, 200, 200, 200, 200)),
        (
            "put",
            "/api/v1/priority-tiers/p2-standard/",
            {"value": 150},
            (U, 403, 403, 403, 200, 403),
        ),
        (
            "patch",
            "/api/v1/priority-tiers/p2-standard/",
            {"description": "standard"},
            (U, 403, 403, 403, 200, 403),
        ),
    ],
    "queue-list": [
        ("get", "/api/v1/queues/", None, (U, 200, 200, 200, 200, 200)),
        ("post", "/api/v1/queues/", {"name": "extra-queue"}, (U, 403, 403, 403, 201, 403)),
    ],
    "queue-detail": [
        ("get", "/api/v1/queues/{queue}/", None, (U, 200, 200, 200, 200, 200)),
        ("patch", "/api/v1/queues/{queue}/", POLICY, (U, 403, 403, 200, 200, 403)),
    ],
    "queue-preview": [
        ("post", "/api/v1/queues/{queue}/preview/", POLICY, (U, 403, 403, 200, 200, 403))
    ],
    "change-request-list": [
        ("get", "/api/v1/change-requests/", None, (U, 200, 200, 200, 200, 200))
    ],
    "change-request-detail": [
        ("get", "/api/v1/change-requests/{cr}/", None, (U, 200, 404, 200, 200, 404))
    ],
    "change-request-approve": [
        ("post", "/api/v1/change-requests/{cr}/approve/", {}, (U, 403, 404, 403, 200, 404))
    ],
    "change-request-reject": [
        (
            "post",
            "/api/v1/change-requests/{cr}/reject/",
            {"comment": "no"},
            (U, 403, 404, 403, 200, 404),
        )
    ],
    "change-request-withdraw": [
        # Only the requester (vision's lead) withdraws; an admin rejects instead.
        ("post", "/api/v1/change-requests/{cr}/withdraw/", {}, (U, 403, 404, 200, 403, 404))
    ],
    "audit-list": [("get", "/api/v1/audit/", None, (U, 200, 200, 200, 200, 200))],
    "audit-export": [("get", "/api/v1/audit/export/", None, (U, 200, 200, 200, 200, 200))],
    # An entry about a notebook or job is seen by who sees it (see notebook-detail and
    # job-detail): {nb_audit} is about the scientist's notebook, {peer_nb_audit} about a
    # teammate's, {peer_job_audit} about a teammate's job.
    "audit-detail": [
        ("get", "/api/v1/audit/{audit}/", None, (U, 200, 404, 200, 200, 404)),
        ("get", "/api/v1/audit/{nb_audit}/", None, (U, 200, 404, 200, 200, 404)),
        ("get", "/api/v1/audit/{peer_nb_audit}/", None, (U, 404, 404, 200, 200, 404)),
        ("get", "/api/v1/audit/{peer_job_audit}/", None, (U, 200, 404, 200, 200, 404)),
    ],
    # --- API tokens: everyone manages their own ({tok} is the scientist's; anyone
    # else's is 404 as for a missing id); launcher tokens are platform admins' only ---
    "accounts:tokens": [
        ("get", "/tokens/", None, (L, 200, 200, 200, 200, T)),
        ("post", "/tokens/", {"name": "laptop", "days": "30"}, (L, 201, 201, 201, 201, T)),
    ],
    "accounts:token-revoke": [("post", "/tokens/{tok}/revoke/", {}, (L, 302, 404, 404, 404, T))],
    # --- users: admins manage them ({sci} is the scientist); the one-time set-password
    # page answers anyone, a bad link with "not valid"; through the API a non-admin sees
    # only themselves (others 404) and may not change even that (403) ---------------
    "accounts:set-password": [("get", "/set-password/MQ/bad-token/", None, OPEN)],
    "users:list": [("get", "/administration/users/", None, ADMIN_PAGE)],
    "users:new": [
        ("get", "/administration/users/new/", None, ADMIN_PAGE),
        ("post", "/administration/users/new/", {"username": "carol"}, (L, 403, 403, 403, 201, T)),
    ],
    "users:disable": [("post", "/administration/users/{sci}/disable/", {}, ADMIN_POST)],
    "users:enable": [("post", "/administration/users/{sci}/enable/", {}, ADMIN_POST)],
    "users:stop-notebooks": [
        ("post", "/administration/users/{sci}/stop-notebooks/", {}, ADMIN_POST)
    ],
    "user-list": [
        ("get", "/api/v1/users/", None, (U, 200, 200, 200, 200, 200)),
        ("post", "/api/v1/users/", {"username": "carol"}, (U, 403, 403, 403, 201, 403)),
    ],
    "user-detail": [("get", "/api/v1/users/scientist/", None, (U, 200, 404, 404, 200, 404))],
    "user-disable": [
        ("post", "/api/v1/users/scientist/disable/", {}, (U, 403, 404, 404, 200, 404))
    ],
    "user-enable": [("post", "/api/v1/users/scientist/enable/", {}, (U, 403, 404, 404, 200, 404))],
    "user-stop-notebooks": [
        ("post", "/api/v1/users/scientist/stop-notebooks/", {}, (U, 403, 404, 404, 200, 404))
    ],
    "jobs:launchers": [
        ("get", "/launchers/", None, (L, 403, 403, 403, 200, T)),
        ("post", "/launchers/", LAUNCHER, (L, 403, 403, 403, 201, T)),
    ],
    "jobs:launcher-teams": [
        ("post", "/launchers/{grant}/teams/", {"teams": ["vision"]}, (L, 403, 403, 403, 302, T))
    ],
    "jobs:launcher-revoke": [
        ("post", "/launchers/{grant}/revoke/", {}, (L, 403, 403, 403, 302, T))
    ],
    # --- notifications ---------------------------------------------------------
    "notifications:preferences": [
        ("get", "/notifications/", None, (L, 200, 200, 200, 200, T)),
        (
            "post",
            "/notifications/",
            {"email_enabled": "on", "webhook_format": "json"},
            (L, 302, 302, 302, 302, T),
        ),
    ],
    # --- OIDC (mounted only when QM_OIDC_ENABLED) --------------------------------
    "oidc_authentication_init": [("get", "/oidc/authenticate/", None, ANON)],
    "oidc_authentication_callback": [("get", "/oidc/callback/", None, ANON)],
    "oidc_logout": [("post", "/oidc/logout/", None, ANON)],
    # --- reports: every signed-in user opens a stored week (200), its content narrowed
    # to their teams; a missing week is 404 for everyone; pages refuse tokens -------
    "report-list": [("get", "/api/v1/reports/", None, (U, 200, 200, 200, 200, 200))],
    "report-detail": [
        ("get", "/api/v1/reports/{week}/", None, (U, 200, 200, 200, 200, 200)),
        ("get", "/api/v1/reports/2026-W01/", None, (U, 404, 404, 404, 404, 404)),
    ],
    "report-trend": [("get", "/api/v1/reports/trend/", None, (U, 200, 200, 200, 200, 200))],
    "reports:index": [("get", "/reports/", None, (L, 302, 302, 302, 302, T))],
    "reports:trend": [("get", "/reports/trend/", None, (L, 200, 200, 200, 200, T))],
    "reports:glossary": [("get", "/reports/glossary/", None, (L, 200, 200, 200, 200, T))],
    "reports:week": [
        ("get", "/reports/{week}/", None, (L, 200, 200, 200, 200, T)),
        ("get", "/reports/2026-W01/", None, (L, 404, 404, 404, 404, T)),
    ],
    # The downloads also take an API token (the launcher's user, in no team, gets an
    # empty narrowing, as on the API); the pages do not.
    "reports:week-json": [
        ("get", "/reports/{week}/report.json", None, (L, 200, 200, 200, 200, 200))
    ],
    "reports:week-csv": [("get", "/reports/{week}/report.csv", None, (L, 200, 200, 200, 200, 200))],
    # Usage over a range: every signed-in user, narrowed to their teams; a bad range is
    # 400 for everyone signed in. The page refuses tokens, as every page does.
    "usage": [
        ("get", "/api/v1/usage/?range=7d", None, (U, 200, 200, 200, 200, 200)),
        ("get", "/api/v1/usage/?range=1y", None, (U, 400, 400, 400, 400, 400)),
    ],
    "reports:usage": [
        ("get", "/reports/usage/?range=30d", None, (L, 200, 200, 200, 200, T)),
        ("get", "/reports/usage/?range=1y", None, (L, 400, 400, 400, 400, T)),
    ],
    # --- notebooks and jobs: {nb} and {job} belong to the scientist (team vision),
    # {peer_nb} and {peer_job} to a teammate of the scientist's.
    # A notebook is seen by its owner, its requester, vision's lead and admins; a job
    # by every member of its team and admins; anyone else gets 404 as for a missing id.
    # Stopping or cancelling is for the owner, the requester, the team's lead and admins:
    # a teammate who sees a job is refused (403).
    # Requests act for the caller, who must be in a team (the admin and the launcher's
    # own user are in none: 403); a launcher may act for members of its granted team.
    "notebook-list": [
        ("get", "/api/v1/notebooks/", None, (U, 200, 200, 200, 200, 200)),
        ("post", "/api/v1/notebooks/", NOTEBOOK, (U, 201, 201, 201, 403, 403)),
        ("post", "/api/v1/notebooks/", FOR_SCIENTIST, (U, 201, 403, 403, 403, 201)),
    ],
    "notebook-detail": [
        ("get", "/api/v1/notebooks/{nb}/", None, (U, 200, 404, 200, 200, 404)),
        ("get", "/api/v1/notebooks/999999/", None, (U, 404, 404, 404, 404, 404)),
        ("get", "/api/v1/notebooks/{peer_nb}/", None, (U, 404, 404, 200, 200, 404)),
        ("delete", "/api/v1/notebooks/{nb}/", None, (U, 204, 404, 204, 204, 404)),
    ],
    "notebook-renew": [("post", "/api/v1/notebooks/{nb}/renew/", {}, (U, 200, 404, 200, 200, 404))],
    "job-list": [
        ("get", "/api/v1/jobs/", None, (U, 200, 200, 200, 200, 200)),
        ("post", "/api/v1/jobs/", JOB, (U, 201, 201, 201, 403, 403)),
    ],
    "job-detail": [
        ("get", "/api/v1/jobs/{job}/", None, (U, 200, 404, 200, 200, 404)),
        ("delete", "/api/v1/jobs/{job}/", None, (U, 204, 404, 204, 204, 404)),
        ("get", "/api/v1/jobs/{peer_job}/", None, (U, 200, 404, 200, 200, 404)),
        ("delete", "/api/v1/jobs/{peer_job}/", None, (U, 403, 404, 204, 204, 404)),
    ],
    # An inference service is team business like a job: {inf} is the scientist's,
    # {peer_inf} a teammate's. Only vision has a production queue: nlp's lead gets 400.
    "inference-service-list": [
        ("get", "/api/v1/inference-services/", None, (U, 200, 200, 200, 200, 200)),
        ("post", "/api/v1/inference-services/", INFERENCE, (U, 201, 400, 201, 403, 403)),
    ],
    "inference-service-detail": [
        ("get", "/api/v1/inference-services/{inf}/", None, (U, 200, 404, 200, 200, 404)),
        ("get", "/api/v1/inference-services/{peer_inf}/", None, (U, 200, 404, 200, 200, 404)),
        ("delete", "/api/v1/inference-services/{inf}/", None, (U, 204, 404, 204, 204, 404)),
        ("delete", "/api/v1/inference-services/{peer_inf}/", None, (U, 403, 404, 204, 204, 404)),
    ],
    # A sweep is seen and cancelled like its trials (jobs): {sweep} is the scientist's,
    # {peer_sweep} a teammate's.
    "sweep-list": [
        ("get", "/api/v1/sweeps/", None, (U, 200, 200, 200, 200, 200)),
        ("post", "/api/v1/sweeps/", SWEEP, (U, 201, 201, 201, 403, 403)),
    ],
    "sweep-detail": [
        ("get", "/api/v1/sweeps/{sweep}/", None, (U, 200, 404, 200, 200, 404)),
        ("get", "/api/v1/sweeps/{peer_sweep}/", None, (U, 200, 404, 200, 200, 404)),
    ],
    "sweep-cancel": [
        ("post", "/api/v1/sweeps/{sweep}/cancel/", {}, (U, 200, 404, 200, 200, 404)),
        ("post", "/api/v1/sweeps/{peer_sweep}/cancel/", {}, (U, 403, 404, 200, 200, 404)),
    ],
    # Nothing has failed in either sweep: who may retry gets the rule's 400, others 403/404.
    "sweep-retry": [
        ("post", "/api/v1/sweeps/{sweep}/retry/", {}, (U, 400, 404, 400, 400, 404)),
        ("post", "/api/v1/sweeps/{peer_sweep}/retry/", {}, (U, 403, 404, 400, 400, 404)),
    ],
    # A team's sweep limit is read like its policy; its lead sets it, admins too.
    "sweep-limit-detail": [
        ("get", "/api/v1/sweep-limits/vision/", None, (U, 200, 200, 200, 200, 200)),
        ("put", "/api/v1/sweep-limits/vision/", {"per_user": 3}, (U, 403, 403, 200, 200, 403)),
    ],
    # A quote checks who may submit as the submission does and writes nothing. A job
    # that could never fit is answered without the cluster; one that could needs it
    # (none answers here: 503).
    "quote-list": [
        ("post", "/api/v1/quotes/", NEVER_FITS, (U, 200, 200, 200, 403, 403)),
        ("post", "/api/v1/quotes/", JOB, (U, 503, 503, 503, 403, 403)),
    ],
    "jobs:notebooks": [("get", "/notebooks/", None, (L, 200, 200, 200, 200, T))],
    "jobs:notebook-new": [("get", "/notebooks/new/", None, (L, 200, 200, 200, 200, T))],
    "jobs:notebook": [
        ("get", "/notebooks/{nb}/", None, (L, 200, 404, 200, 200, T)),
        ("get", "/notebooks/{peer_nb}/", None, (L, 404, 404, 200, 200, T)),
    ],
    # Hours beyond the pool's maximum re-render the page with the form error (200).
    "jobs:notebook-renew": [
        ("post", "/notebooks/{nb}/renew/", {}, (L, 302, 404, 302, 302, T)),
        ("post", "/notebooks/{nb}/renew/", {"hours": "999"}, (L, 200, 404, 200, 200, T)),
    ],
    # Stop asks first (GET, or a POST without "confirm"); only the confirming POST stops.
    "jobs:notebook-stop": [
        ("get", "/notebooks/{nb}/stop/", None, (L, 200, 404, 200, 200, T)),
        ("post", "/notebooks/{nb}/stop/", {}, (L, 200, 404, 200, 200, T)),
        ("post", "/notebooks/{nb}/stop/", {"confirm": "yes"}, (L, 302, 404, 302, 302, T)),
    ],
    # "Open" without QM_NOTEBOOK_URL_TEMPLATE: the explainer, to whoever sees the notebook.
    "jobs:notebook-open": [
        ("get", "/notebooks/open/team-vision/{nb_name}/", None, (L, 200, 404, 200, 200, T))
    ],
    "jobs:jobs": [("get", "/jobs/", None, (L, 200, 200, 200, 200, T))],
    "jobs:job-new": [("get", "/jobs/new/", None, (L, 200, 200, 200, 200, T))],
    "jobs:job": [
        ("get", "/jobs/{job}/", None, (L, 200, 404, 200, 200, T)),
        ("get", "/jobs/{peer_job}/", None, (L, 200, 404, 200, 200, T)),
    ],
    "jobs:sweep-new": [("get", "/sweeps/new/", None, (L, 200, 200, 200, 200, T))],
    "jobs:sweeps": [("get", "/sweeps/", None, (L, 200, 200, 200, 200, T))],
    # A team's sweep limit is read by everyone, set by its leads and admins; who may not
    # set it is refused before the form is read, and out of range re-renders the form.
    "jobs:sweep-limit": [
        ("get", "/sweeps/limits/vision/", None, (L, 200, 200, 200, 200, T)),
        ("post", "/sweeps/limits/vision/", {"per_user": "3"}, (L, 403, 403, 302, 302, T)),
        ("post", "/sweeps/limits/vision/", {"per_user": "99"}, (L, 403, 403, 200, 200, T)),
    ],
    "jobs:sweep": [
        ("get", "/sweeps/{sweep}/", None, (L, 200, 404, 200, 200, T)),
        ("get", "/sweeps/{peer_sweep}/", None, (L, 200, 404, 200, 200, T)),
    ],
    "jobs:sweep-cancel": [
        ("post", "/sweeps/{sweep}/cancel/", {}, (L, 302, 404, 302, 302, T)),
        ("post", "/sweeps/{peer_sweep}/cancel/", {}, (L, 403, 404, 302, 302, T)),
    ],
    "jobs:sweep-retry": [
        ("post", "/sweeps/{sweep}/retry/", {}, (L, 302, 404, 302, 302, T)),
        ("post", "/sweeps/{peer_sweep}/retry/", {}, (L, 403, 404, 302, 302, T)),
    ],
    "jobs:inference-services": [("get", "/inference/", None, (L, 200, 200, 200, 200, T))],
    "jobs:inference-new": [("get", "/inference/new/", None, (L, 200, 200, 200, 200, T))],
    "jobs:inference": [
        ("get", "/inference/{inf}/", None, (L, 200, 404, 200, 200, T)),
        ("get", "/inference/{peer_inf}/", None, (L, 200, 404, 200, 200, T)),
    ],
    "jobs:inference-stop": [
        ("post", "/inference/{inf}/stop/", {}, (L, 302, 404, 302, 302, T)),
        ("post", "/inference/{peer_inf}/stop/", {}, (L, 403, 404, 302, 302, T)),
    ],
    "jobs:job-cancel": [
        ("post", "/jobs/{job}/cancel/", {}, (L, 302, 404, 302, 302, T)),
        ("post", "/jobs/{peer_job}/cancel/", {}, (L, 403, 404, 302, 302, T)),
    ],
    # --- what-if: {run} belongs to vision's lead. Admins see every run, others their
    # own; scientists may not run one (403), and a lead may only draft queues they edit.
    "whatif:runs": [("get", "/whatif/", None, (L, 200, 200, 200, 200, T))],
    # Suggestions: leads (their teams' queues) and admins; "Look again now" runs the rules
    # for the viewer's queues (none fires in this world: no stored reports) and goes back.
    "whatif:suggestions": [("get", "/whatif/suggestions/", None, (L, 403, 200, 200, 200, T))],
    "whatif:suggestion-refresh": [
        ("post", "/whatif/suggestions/refresh/", {}, (L, 403, 302, 302, 302, T))
    ],
    # Another team's suggestion answers as one that does not exist.
    "whatif:suggestion-dismiss": [
        ("post", "/whatif/suggestions/{sugg}/dismiss/", {}, (L, 404, 404, 302, 302, T))
    ],
    "whatif:run": [("get", "/whatif/{run}/", None, (L, 404, 404, 200, 200, T))],
    "whatif:apply": [("post", "/whatif/{run}/apply/", {}, (L, 404, 404, 302, 302, T))],
    # A what-if of a change request ({cr}, filed by vision's lead): whoever may edit the queue.
    # {closed_cr} was withdrawn: who may not edit the queue is refused before that is said.
    "whatif:from-change-request": [
        ("post", "/change-requests/{cr}/whatif/", {}, (L, 403, 404, 302, 302, T)),
        ("post", "/change-requests/{closed_cr}/whatif/", {}, (L, 403, 404, 302, 302, T)),
    ],
    # Who may not edit the queue is refused before the form is read (an empty form).
    "whatif:from-queue": [
        ("post", "/queues/{queue}/whatif/", FORM, (L, 403, 403, 302, 302, T)),
        ("post", "/queues/{queue}/whatif/", {}, (L, 403, 403, 302, 302, T)),
    ],
    "whatif-list": [
        ("get", "/api/v1/whatif/", None, (U, 200, 200, 200, 200, 200)),
        ("post", "/api/v1/whatif/", WHATIF, (U, 403, 403, 202, 202, 403)),
    ],
    "whatif-detail": [("get", "/api/v1/whatif/{run}/", None, (U, 404, 404, 200, 200, 404))],
    # Suggestions as the page shows them: others get an empty list, and 404 for one.
    "suggestion-list": [
        ("get", "/api/v1/suggestions/", None, (U, 200, 200, 200, 200, 200)),
        ("get", "/api/v1/suggestions/?state=open", None, (U, 400, 400, 400, 400, 400)),
    ],
    "suggestion-detail": [
        ("get", "/api/v1/suggestions/{sugg}/", None, (U, 404, 404, 200, 200, 404))
    ],
    "suggestion-dismiss": [
        ("post", "/api/v1/suggestions/{sugg}/dismiss/", {}, (U, 404, 404, 200, 200, 404))
    ],
    "whatif-apply": [("post", "/api/v1/whatif/{run}/apply/", {}, (U, 404, 404, 400, 400, 404))],
    # --- live views: queues a viewer submits to (admins: all); workloads of their teams'
    # namespaces (vision's here), anyone else 404. No cluster answers here: "unreachable".
    "live:queues": [("get", "/live/", None, (L, 200, 200, 200, 200, T))],
    "live:workload": [
        ("get", "/live/workloads/team-vision/job-x-1a2b3/", None, (L, 200, 404, 200, 200, T))
    ],
    "live-queues": [("get", "/api/v1/live/queues/", None, (U, 200, 200, 200, 200, 200))],
    "live-workload": [
        (
            "get",
            "/api/v1/live/workloads/team-vision/job-x-1a2b3/",
            None,
            (U, 200, 404, 200, 200, 404),
        ),
        (
            "post",
            "/api/v1/live/workloads/team-vision/job-x-1a2b3/",
            {},
            (U, 405, 405, 405, 405, 405),
        ),
    ],
    # Members see their namespace's ETAs (state "unavailable" while no cluster answers).
    "whatif-eta": [
        (
            "get",
            "/api/v1/whatif/eta/?namespace=team-vision&workload=x",
            None,
            (U, 200, 403, 200, 200, 403),
        ),
    ],
}


def _is_admin_site(name: str) -> bool:
    """Django's admin is for staff accounts (ops), covered by its own test below."""
    return name.startswith(("admin:", "route:admin/"))


def test_every_url_pattern_has_an_expectation():
    names = {n for n in url_names() if not _is_admin_site(n)}
    missing = names - set(MATRIX)
    assert not missing, (
        f"add rows to tests/security/test_authorization_matrix.py: {sorted(missing)}"
    )
    # Rows for URLs that are gone would silently test nothing.
    optional = {"oidc_authentication_init", "oidc_authentication_callback", "oidc_logout"}
    assert set(MATRIX) - names <= optional


@pytest.fixture
def world(queue, other_queue, lead, scientist, other_lead, admin, envelope, settings, request):
    request.getfixturevalue("pool")  # the jobs app's fixtures, imported above
    request.getfixturevalue("template")
    request.getfixturevalue("production_queue")
    settings.METRICS_TOKEN = "metrics-only-token"
    settings.PROMETHEUS_URL = settings.OPENCOST_URL = ""
    closed = set_policy(queue, lead, quotas=[quota("h100", "33")]).change_request
    services.withdraw_change_request(closed, actor=lead)
    change_request = set_policy(queue, lead, quotas=[quota("h100", "32")]).change_request
    audit = AuditEntry.objects.filter(team=queue.team).order_by("pk").first()
    bot = UserFactory(username="launcher-bot")
    token, raw = issue_api_token(bot, "jupyterhub", actor=bot)
    grant = _grant_launcher(token, queue.team, admin)
    personal, _ = issue_api_token(scientist, "laptop", actor=scientist)
    users = {
        "anonymous": None,
        "scientist": scientist,
        "other_lead": other_lead,
        "lead": lead,
        "admin": admin,
        "launcher": raw,
    }
    mine = Principal(scientist)
    notebook = request_notebook(
        scientist, NotebookRequest(image=IMAGE, flavor="h100"), actor=mine
    ).record
    peer = _teammate(queue.team, admin)
    peer_notebook = request_notebook(
        peer, NotebookRequest(image=IMAGE, flavor="h100"), actor=Principal(peer)
    ).record
    job, _ = submit_job(scientist, JobRequest(template="pytorch-train", flavor="h100"), actor=mine)
    peer_job, _ = submit_job(
        peer, JobRequest(template="pytorch-train", flavor="h100"), actor=Principal(peer)
    )
    sweep = submit_sweep(
        scientist,
        SweepRequest(
            job=JobRequest(template="pytorch-train", flavor="h100"), grid={"seed": [1, 2, 3]}
        ),
        actor=mine,
    ).record
    peer_sweep = submit_sweep(
        peer,
        SweepRequest(
            job=JobRequest(template="pytorch-train", flavor="h100"), grid={"seed": [1, 2, 3]}
        ),
        actor=Principal(peer),
    ).record
    serving = InferenceRequest(flavor="h100", image=SERVING_IMAGE)
    inference = request_inference_service(scientist, serving, actor=mine).record
    peer_inference = request_inference_service(peer, serving, actor=Principal(peer)).record
    report = build_weekly_report(WEEK)
    run = request_whatif({"vision": {"fair_weight": "2"}}, actor=lead)
    suggestion = _offered_suggestion(queue)
    return {
        "queue": queue,
        "cr": change_request,
        "closed_cr": closed.pk,
        "audit": audit,
        "users": users,
        "nb": notebook,
        "nb_audit": _audit_of(notebook).pk,
        "peer_nb": peer_notebook,
        "peer_nb_audit": _audit_of(peer_notebook).pk,
        "job": job,
        "peer_job": peer_job,
        "peer_job_audit": _audit_of(peer_job).pk,
        "sweep": sweep.pk,
        "peer_sweep": peer_sweep.pk,
        "inf": inference.pk,
        "peer_inf": peer_inference.pk,
        "week": report.week,
        "run": run.pk,
        "sugg": suggestion.pk,
        "tok": personal.pk,
        "grant": getattr(grant, "pk", 0),
        "sci": scientist.pk,
    }


def target_url(url: str, world: dict) -> str:
    """A row's URL template with the world's objects filled in."""
    return url.format(
        queue=world["queue"].pk,
        cr=world["cr"].pk,
        closed_cr=world["closed_cr"],
        audit=world["audit"].pk,
        nb=world["nb"].pk,
        nb_name=world["nb"].name,
        nb_audit=world["nb_audit"],
        peer_nb=world["peer_nb"].pk,
        peer_nb_audit=world["peer_nb_audit"],
        job=world["job"].pk,
        peer_job=world["peer_job"].pk,
        peer_job_audit=world["peer_job_audit"],
        sweep=world["sweep"],
        peer_sweep=world["peer_sweep"],
        inf=world["inf"],
        peer_inf=world["peer_inf"],
        week=world["week"],
        run=world["run"],
        sugg=world["sugg"],
        tok=world["tok"],
        grant=world["grant"],
        sci=world["sci"],
    )


def _offered_suggestion(queue) -> PolicySuggestion:
    """A stored suggestion on the lead's queue, as the weekly look leaves one."""
    return PolicySuggestion.objects.create(
        checked_at=timezone.now(),
        kind="lower-idle-quota",
        queue=queue,
        flavor="h100",
        title=f"Lower {queue.name} on h100: 16 → 3 GPUs",
        weeks=[WEEK],
        evidence={"summary": "", "facts": {}, "columns": [], "rows": []},
        proposal={"quotas": []},
        fingerprint="matrix",
        state=SuggestionState.OFFERED,
    )


def _teammate(team, admin):
    """Another scientist of the scientist's team."""
    peer = UserFactory(username="peer")
    services.add_membership(team=team, user=peer, role=TeamRole.SCIENTIST, actor=admin)
    return peer


def _audit_of(record) -> AuditEntry:
    kind = record._meta.model_name
    return AuditEntry.objects.filter(object_type=kind, object_id=str(record.pk)).first()


def _grant_launcher(token, team, admin):
    try:
        from apps.jobs.models import LauncherGrant
    except ImportError:  # apps/jobs not there: a plain token is the launcher
        return
    grant = LauncherGrant.objects.create(token=token, granted_by=admin)
    grant.teams.add(team)
    return grant


def _body(kind, queue):
    if kind == POLICY:
        return {"version": queue.version, "fair_weight": "1.5"}
    if kind == FORM:
        return {
            "version": queue.version,
            "fair_weight": "1.5",
            "queueing_strategy": "BestEffortFIFO",
            "stop_policy": "None",
            "reclaim_within_cohort": "Never",
            "within_cluster_queue": "Never",
            "borrow_within_cohort": "Never",
            "cohort": "research",
            "preview": "1",
        }
    return kind or {}


def _client(role: str, user, *, api: bool):
    client = APIClient()
    if role == "launcher":
        client.credentials(HTTP_AUTHORIZATION=f"Token {user}")
    elif user is not None:
        client.force_login(user)
    return client


def _cases():
    mounted = url_names()  # OIDC URLs exist only when QM_OIDC_ENABLED
    for name, rows in sorted(MATRIX.items()):
        if name not in mounted:
            continue
        for method, url, body, expected in rows:
            roles = ROLES if expected != ANON else ("anonymous", "launcher")
            for role in roles:
                want = expected[ROLES.index(role)] if expected != ANON else None
                yield pytest.param(
                    name, method, url, body, role, want, id=f"{name}-{method}-{role}"
                )


@pytest.mark.parametrize(("name", "method", "url", "body", "role", "expected"), list(_cases()))
def test_each_persona_gets_what_the_matrix_says(world, name, method, url, body, role, expected):
    target = target_url(url, world)
    api = target.startswith("/api/")
    client = _client(role, world["users"][role], api=api)
    data = _body(body, world["queue"])
    response = getattr(client, method)(target, data, format="json" if api else None)
    if expected is None:
        _assert_refused(response, role, api)
    else:
        assert response.status_code == expected, response.content[:300]


AUDIT_LISTS = (
    "/api/v1/audit/",
    "/api/v1/audit/export/",
    "/teams/vision/audit/",
    "/teams/vision/audit/?format=csv",
    "/audit/",
    "/audit/?format=csv",
)


@pytest.mark.parametrize("url", AUDIT_LISTS)
@pytest.mark.parametrize("role", [r for r in ROLES if r != "anonymous"])
def test_audit_lists_name_a_notebook_or_job_only_to_who_may_open_it(world, role, url):
    """Whatever the audit list (page, CSV, API), a teammate's notebook or job is named in
    it exactly when the notebook or job API lets the viewer open it."""
    client = _client(role, world["users"][role], api=True)
    response = client.get(url)
    if response.status_code != 200:
        return  # who may open which list is the matrix's business
    text = _text(response)
    for record, api in ((world["peer_nb"], "notebooks"), (world["peer_job"], "jobs")):
        opens = client.get(f"/api/v1/{api}/{record.pk}/").status_code == 200
        assert (str(record) in text) == opens, record


def _text(response) -> str:
    if response.streaming:
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


def _assert_refused(response, role: str, api: bool) -> None:
    """Anonymous callers get the login form or 401/403; a token never opens a page."""
    if api and role == "launcher":
        assert response.status_code < 500
    elif api:
        assert response.status_code in (401, 403)
    else:
        assert response.status_code in (302, 403, 405)
        if response.status_code == 302:
            assert response["Location"].startswith("/login/")


@pytest.mark.django_db
def test_the_django_admin_is_for_staff_only(client, admin, lead):
    # The login page is the one admin page everybody may see.
    names = sorted(
        n
        for n in url_names()
        if n.startswith("admin:") and n not in ("admin:login", "admin:logout")
    )
    urls = []
    for name in names:
        try:
            urls.append(reverse(name))
        except NoReverseMatch:
            continue  # needs an object id; the same admin_view guard protects it
    assert len(urls) > 10
    for user in (None, lead, admin):  # a platform admin is not Django staff either
        if user is not None:
            client.force_login(user)
        for url in urls:
            response = client.get(url)
            assert response.status_code == 302, url
            assert "/admin/login/" in response["Location"], url
    staff = UserFactory(username="ops", is_staff=True, is_superuser=True)
    client.force_login(staff)
    assert client.get("/admin/").status_code == 200
