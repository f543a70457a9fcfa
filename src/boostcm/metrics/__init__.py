"""boostcm.metrics."""
