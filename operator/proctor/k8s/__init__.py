"""proctor.k8s."""
