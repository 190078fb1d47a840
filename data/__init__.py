"""Bundled data sets of fmstats (files live in the top-level data/ folder)."""
