"""The lab: exact odds of every roll, and whole-campaign simulation (Monte Carlo)."""
