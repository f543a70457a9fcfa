"""boostcm.calibration."""
