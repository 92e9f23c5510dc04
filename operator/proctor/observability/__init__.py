"""proctor.observability."""
