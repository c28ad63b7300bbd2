"""Rounds of points over the devices, and the session that drives them from call to call."""
