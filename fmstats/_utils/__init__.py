"""Private foundations shared by every part of fmstats (not public API).

* :mod:`fmstats._utils.validation` -- checks of user input at public entry points;
* :mod:`fmstats._utils.progress` -- progress bars for long work;
* :mod:`fmstats._utils.parallel` -- independent refits through joblib.
"""
