"""Numerical core of the maxent models: pure ndarray functions."""
