"""proctor.gate."""
