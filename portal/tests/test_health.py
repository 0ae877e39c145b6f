import pytest

from portal.celery import app as celery_app


def test_healthz_answers_without_touching_dependencies(client):
    assert client.get("/healthz").json() == {"status": "ok"}


@pytest.mark.django_db
def test_readyz_checks_database_and_broker(client):
    response = client.get("/readyz")
    assert response.status_code == 200, response.content


@pytest.mark.django_db
def test_readyz_names_an_unreachable_broker(client):
    original = celery_app.conf.broker_url
    celery_app.conf.broker_url = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    try:
        response = client.get("/readyz")
    finally:
        celery_app.conf.broker_url = original
    assert response.status_code == 503
    assert response.json()["reasons"][0].startswith("broker unreachable")
