"""The key/value state table keeps small JSON values across sessions, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from db.models import KeyValueRow
from db.state import SessionStateStore, load_state, save_state


def test_a_missing_key_loads_as_none(session):
    assert load_state(session, "browse:token:abc") is None


def test_a_saved_value_replaces_the_old_one_and_records_when(session, now):
    save_state(session, "browse:budget:abc", {"day": "2026-11-20", "used": 1}, now)
    later = now + timedelta(minutes=5)
    save_state(session, "browse:budget:abc", {"day": "2026-11-20", "used": 2}, later)
    session.commit()
    rows = session.scalars(select(KeyValueRow)).all()
    assert [(r.key, r.value) for r in rows] == [
        ("browse:budget:abc", {"day": "2026-11-20", "used": 2})
    ]
    assert rows[0].updated_at.replace(tzinfo=now.tzinfo) == later


def test_the_store_commits_so_another_session_sees_the_value_at_once(engine, now):
    with Session(engine) as first, Session(engine) as second:
        reader = SessionStateStore(second)
        assert reader.load("k") is None
        reader.release()
        SessionStateStore(first).save("k", {"access_token": "t", "n": 3}, now)
        assert reader.load("k", lock=True) == {"access_token": "t", "n": 3}
        reader.release()


def test_a_value_changed_elsewhere_is_never_served_stale(engine, now):
    with Session(engine) as first, Session(engine) as second:
        writer, reader = SessionStateStore(first), SessionStateStore(second)
        writer.save("k", {"used": 1}, now)
        assert reader.load("k") == {"used": 1}
        reader.release()
        writer.save("k", {"used": 2}, now)
        assert reader.load("k") == {"used": 2}
