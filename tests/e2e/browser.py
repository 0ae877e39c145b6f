"""Steps the browser tests share: signing in, approving as the admin; where screenshots go."""

from testkit.paths import REPO

ARTIFACTS = REPO / "test-artifacts"


def sign_in(page, base_url: str, username: str, password: str = "pw") -> None:
    page.goto(f"{base_url}/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base_url}/")


def approve_as_admin(page, base_url: str, comment: str) -> None:
    """Sign out, sign in as the admin (``root``) and approve the newest change request."""
    page.click("button[type=submit]:has-text('Sign out')")
    sign_in(page, base_url, "root")
    page.goto(f"{base_url}/change-requests/")
    page.click("table a >> nth=0")
    page.fill("textarea[name=comment]", comment)
    page.click("button[value=approve]")
