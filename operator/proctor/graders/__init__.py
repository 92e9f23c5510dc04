"""proctor.graders."""
