"""rallypoint: a rules engine and campaign keeper for wargame recovery."""

__version__ = "0.1.0"
