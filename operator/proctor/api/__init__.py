"""proctor.api."""
