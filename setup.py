"""Setuptools shim; metadata lives in setup.cfg."""
from setuptools import setup

setup(packages=["fmstats", "fmstats.glm", "fmstats.svm", "fmstats.multilabel",
                "fmstats.extreme", "fmstats.data"])
