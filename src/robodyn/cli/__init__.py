"""The ``robodyn`` command: :mod:`.app` builds the parser and runs it, :mod:`.common` has
what every command shares (loading a model, argument types), one module per command."""

from .app import build_parser, main

__all__ = ["main", "build_parser"]
