"""Alembic's environment for Proctor's store: always run programmatically (:func:`proctor.store.migrate`),
with the connection passed in ``config.attributes["connection"]``."""

from __future__ import annotations

from alembic import context

from proctor.store._schema import Base

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=connection.dialect.name == "sqlite",  # SQLite alters tables by copying them
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
