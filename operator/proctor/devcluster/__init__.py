"""proctor.devcluster."""
