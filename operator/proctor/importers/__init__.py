"""Importers: turn other tools' suites into Proctor manifests."""
