"""Sphinx configuration for the fmstats documentation.

Build (from the repository root, after ``pip install -e ".[docs]"``)::

    sphinx-build -W -b html docs docs/_build/html

The API pages are written by ``apigen.py`` from the package's ``__all__`` lists before Sphinx
reads the sources; the vignettes (``docs/vignettes`` links to the repository's ``vignettes/``)
are executed by myst-nb, so the pages carry their tables and figures.
``FMSTATS_DOCS_EXECUTE=off`` skips the execution for a quick look at the API pages.
"""
from __future__ import annotations

import inspect
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

# The kernels that execute the vignettes inherit this environment: no progress bars (their
# text would land in the pages).  MPLBACKEND must stay unset (or "inline") there, or the
# figures would not reach the notebook outputs.
os.environ["FMSTATS_PROGRESS"] = "0"
if os.environ.get("MPLBACKEND", "").lower() == "agg":
    del os.environ["MPLBACKEND"]

import fmstats  # noqa: E402
import apigen  # noqa: E402

apigen.write_pages(HERE / "api")

project = "fmstats"
author = "the fmstats authors"
copyright = "the fmstats authors, BSD-3-Clause"
release = fmstats.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
]

source_suffix = {".rst": "restructuredtext", ".ipynb": "myst-nb", ".md": "myst-nb"}
exclude_patterns = ["_build", "**.ipynb_checkpoints", "vignettes/README*"]
templates_path = ["_templates"]

# --- API reference ---------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"          # numpydoc's Parameters sections carry the types
numpydoc_show_class_members = False  # members are documented on the class pages by autodoc
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

# --- vignettes (myst-nb) ---------------------------------------------------------------
nb_execution_mode = os.environ.get("FMSTATS_DOCS_EXECUTE", "cache")
nb_execution_timeout = int(os.environ.get("FMSTATS_DOCS_TIMEOUT", "900"))  # seconds per cell
nb_execution_raise_on_error = True   # a failing vignette fails the build
nb_execution_show_tb = True
nb_merge_streams = True
nb_execution_cache_path = str(HERE / "_build" / ".jupyter_cache")
myst_enable_extensions = ["dollarmath", "amsmath"]

# --- HTML ------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"fmstats {release}"
html_theme_options = {
    "navigation_depth": 2,
    "show_toc_level": 2,
}


def _skip_foreign_members(app, what, name, obj, skip, options):
    """Leave out methods a class inherits from pandas, scikit-learn or Python itself.

    Their docstrings belong to those projects' sites (and point at labels this one lacks);
    the class page shows what fmstats adds.
    """
    if what != "class":
        return None
    target = obj.fget if isinstance(obj, property) else obj
    target = getattr(target, "__func__", target)
    if inspect.isroutine(target) or isinstance(obj, property):
        module = getattr(target, "__module__", None) or ""
        if not module.startswith("fmstats"):
            return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_foreign_members)
