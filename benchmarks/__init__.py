"""Reproducible benchmarks of clusterplace on fixed synthetic fleets (``python -m benchmarks``)."""
