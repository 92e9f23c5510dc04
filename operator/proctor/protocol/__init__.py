"""proctor.protocol."""
