"""Planned; see the open issues."""
