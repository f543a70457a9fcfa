"""boostcm.hashing."""
