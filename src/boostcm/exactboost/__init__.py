"""boostcm.exactboost."""
