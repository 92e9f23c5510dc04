"""Proctor: a Kubernetes operator that examines LLM agents before they ship."""

__version__ = "0.1.0"
