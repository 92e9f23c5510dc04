"""proctor.controllers."""
