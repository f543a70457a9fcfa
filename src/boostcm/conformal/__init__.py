"""boostcm.conformal."""
