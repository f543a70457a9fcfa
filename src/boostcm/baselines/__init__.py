"""boostcm.baselines."""
