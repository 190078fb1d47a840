"""The one scanner of formula text: which characters stand outside quotes, and how deep in
brackets.

Every place that splits or rewrites R formula text asks it -- the ``~`` between the sides
(:func:`split_tilde`), the ``+``/``:``/``,`` between terms, factors and arguments
(:func:`split_top`), the ``)`` closing a call (:func:`closing`), R's ``^`` rewritten as
``**`` -- so one rule holds everywhere:

* text inside ``'...'`` and ``"..."`` (a backslash escapes the next character, as in Python
  and R strings) and inside back-quotes ```...``` (a name; no escapes) is never split or
  rewritten, whatever it holds;
* ``()``, ``[]`` and ``{}`` nest: a character is at the top level when no bracket is open
  before it.
"""
from __future__ import annotations

from typing import Iterator

__all__ = ["scan", "split_top", "split_tilde", "closing", "replace_top"]

QUOTES = "'\"`"
OPENING = "([{"
CLOSING = ")]}"


def scan(text: str) -> Iterator[tuple[int, str, int]]:
    """``(position, character, depth)`` of every character of ``text`` outside quotes (the
    quote marks themselves are inside), in order.

    ``depth`` is the number of brackets open around the character; an opening bracket and its
    closing bracket get the depth outside them (so the brackets of a top-level call both
    have depth 0).  Unbalanced closing brackets give negative depths; the caller decides.
    """
    depth, quote, escaped = 0, None, False
    for i, ch in enumerate(text):
        if quote is not None:
            if escaped:
                escaped = False
            elif ch == "\\" and quote != "`":
                escaped = True
            elif ch == quote:
                quote = None
            continue
        if ch in QUOTES:
            quote = ch
        elif ch in OPENING:
            yield i, ch, depth
            depth += 1
        elif ch in CLOSING:
            depth -= 1
            yield i, ch, depth
        else:
            yield i, ch, depth


def split_top(text: str, sep: str) -> list[str]:
    """``text`` split at every ``sep`` outside quotes and brackets.

    Parameters
    ----------
    text : str
        Formula text (a side, a term, a call's arguments).
    sep : str
        One character: ``"~"``, ``"+"``, ``":"``, ``","``.

    Returns
    -------
    list of str
        The parts, unstripped (one part when ``sep`` does not occur at the top level).

    Examples
    --------
    >>> from fmstats.formula import split_top
    >>> split_top("C(a, levels=['x:y']):b", ":")
    ["C(a, levels=['x:y'])", 'b']
    """
    cuts = [i for i, ch, depth in scan(text) if ch == sep and depth == 0]
    bounds = [-1] + cuts + [len(text)]
    return [text[a + 1:b] for a, b in zip(bounds, bounds[1:])]


def split_tilde(text: str) -> tuple[str, str] | None:
    """The two sides of a formula at its ``~`` outside quotes and brackets.

    Parameters
    ----------
    text : str
        A formula, or a right-hand side alone.

    Returns
    -------
    tuple of str or None
        ``(lhs, rhs)``, unstripped; ``("", text)`` when ``text`` has no ``~``; None when it
        has more than one (``"y ~ I(s == '~')"`` has one).

    Examples
    --------
    >>> from fmstats.formula import split_tilde
    >>> split_tilde("y ~ I(s == '~') + x")
    ('y ', " I(s == '~') + x")
    """
    parts = split_top(text, "~")
    if len(parts) > 2:
        return None
    return ("", text) if len(parts) == 1 else (parts[0], parts[1])


def closing(text: str, start: int) -> int | None:
    """Position of the bracket closing the one at ``start`` (None when it is not closed)."""
    level = None
    for i, ch, depth in scan(text):
        if i == start:
            level = depth
        elif level is not None and ch in CLOSING and depth == level:
            return i
    return None


def replace_top(text: str, old: str, new: str) -> str:
    """``text`` with every character ``old`` outside quotes replaced by ``new`` (at any
    bracket depth).

    >>> replace_top("(a + b)^2 + I(s == 'a^b')", "^", "**")
    "(a + b)**2 + I(s == 'a^b')"
    """
    at = [i for i, ch, _ in scan(text) if ch == old]
    if not at:
        return text
    bounds = [-1] + at + [len(text)]
    return new.join(text[a + 1:b] for a, b in zip(bounds, bounds[1:]))
