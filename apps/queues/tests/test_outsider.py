"""A user in no team is refused a team's audit trail (as if it did not exist) and the
queue editor, as a lead of another team is (test_permission_matrix.py's other_lead)."""


def test_an_outsider_reads_no_team_audit_and_edits_no_queue(client, queue, outsider):
    client.force_login(outsider)
    assert client.get("/teams/vision/audit/").status_code == 404
    assert client.get(f"/queues/{queue.pk}/edit/").status_code == 403
