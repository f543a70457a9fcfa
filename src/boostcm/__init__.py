"""boostcm: exact-metric boosting, learning to hash via boosting, and conformal prediction
for dependent data, with the workflow that reproduces the papers' figures and tables."""

__version__ = "0.1.0"
