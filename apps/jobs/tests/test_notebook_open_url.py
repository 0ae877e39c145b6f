""" "Open" follows QM_NOTEBOOK_URL_TEMPLATE; without one it is the portal's explainer page;
a template with unknown placeholders stops start-up."""

import pytest

from apps.jobs.services import NotebookRequest, Principal, request_notebook
from apps.queues import services
from core.roles import TeamRole
from testkit.factories import UserFactory
from testkit.manage_command import manage
from testkit.notebooks import IMAGE

SPEC = NotebookRequest(image=IMAGE, flavor="h100")


@pytest.mark.django_db
def test_the_template_is_filled_with_namespace_name_and_quoted_user(settings, pool, team, admin):
    settings.QM_NOTEBOOK_URL_TEMPLATE = "https://hub.example.org/user/{user}/{namespace}/{name}/"
    user = UserFactory(username="ana.b@lab")
    services.add_membership(team=team, user=user, role=TeamRole.SCIENTIST, actor=admin)
    notebook = request_notebook(user, SPEC, actor=Principal(user)).record
    assert notebook.url == (
        f"https://hub.example.org/user/ana.b%40lab/team-vision/{notebook.name}/"
    )


@pytest.mark.django_db
def test_without_a_template_open_is_a_portal_page_that_explains(
    settings, client, pool, scientist, other_lead
):
    settings.QM_NOTEBOOK_URL_TEMPLATE = ""
    settings.PORTAL_URL = ""
    notebook = request_notebook(scientist, SPEC, actor=Principal(scientist)).record
    assert notebook.url == f"/notebooks/open/team-vision/{notebook.name}/"
    client.force_login(scientist)
    page = client.get(notebook.url).content.decode()
    assert "QM_NOTEBOOK_URL_TEMPLATE</code> is empty" in page
    assert f"Service <code>{notebook.name}</code> in namespace <code>team-vision</code>" in page
    client.force_login(other_lead)  # not theirs: as if it did not exist
    assert client.get(notebook.url).status_code == 404


@pytest.mark.parametrize(
    ("template", "says"),
    [
        ("https://hub.example.org/{pod}/", "unknown placeholder {pod}"),
        ("https://hub.example.org/{name!r}/", "no format spec or conversion"),
        ("hub.example.org/{name}/", "must start with http://, https:// or /"),
        ("https://hub.example.org/{name/", "expected '}'"),
    ],
)
def test_a_bad_template_stops_start_up_naming_the_variable(tmp_path, template, says):
    result = manage("check", QM_NOTEBOOK_URL_TEMPLATE=template, QM_DATA_DIR=str(tmp_path))
    assert result.returncode != 0
    assert f"QM_NOTEBOOK_URL_TEMPLATE={template!r} is not a valid URL template" in result.stderr
    assert says in result.stderr
