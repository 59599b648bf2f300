"""MkDocs hook: the docstrings cross-reference in Sphinx's style (:func:`robodyn.load`);
on the pages they show as the name in code, without the role."""

import re

_ROLE = re.compile(r":(?:py:)?(?:func|meth|class|attr|mod|data|exc|obj|const):(?=<code)")


def on_page_content(html, **kwargs):
    return _ROLE.sub("", html)
