"""Printing closed forms: text, pretty, LaTeX, Markdown, JSON."""
