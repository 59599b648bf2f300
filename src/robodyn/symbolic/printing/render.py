"""The printers' entry points in one place (their old home): each format is its own
module, :mod:`.text`, :mod:`.pretty`, :mod:`.latex`, :mod:`.markdown`, :mod:`.json`."""

from .json import exact_str, json_str, to_dict, to_json
from .latex import latex_summary, to_latex
from .markdown import to_markdown
from .pretty import to_pretty
from .text import plain, to_text

__all__ = ["to_text", "to_pretty", "plain", "to_latex", "to_markdown", "to_json", "to_dict",
           "exact_str", "json_str", "latex_summary"]
