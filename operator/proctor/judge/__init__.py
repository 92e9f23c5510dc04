"""proctor.judge."""
