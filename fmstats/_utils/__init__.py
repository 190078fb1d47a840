"""Private foundations shared by every part of fmstats (not public API).

* ``validation.py`` -- checks of user input at public entry points;
* ``progress.py`` -- progress bars for long work;
* ``parallel.py`` -- independent refits through joblib.
"""
