"""Reading an MJCF file's XML safely: the elements of the main file and of the files it
includes, each with its file and line (:class:`MjcfElement`), under shared limits.

The XML is read with :mod:`xml.parsers.expat` and any document type declaration is refused
(so no entity is ever defined or expanded, internal or external); only regular files are
opened (a FIFO or device is refused without blocking); a model over :data:`MAX_MJCF_BYTES`,
more than :data:`MAX_MJCF_ELEMENTS` elements or :data:`MAX_MJCF_DEPTH` levels of nesting is
rejected. ``<include file>`` is read only for files inside the folder of the main file (after
resolving links), each at most once, at most :data:`MAX_MJCF_INCLUDES` files
:data:`MAX_INCLUDE_DEPTH` deep, and the byte and element limits hold for all files together.
:func:`robodyn.model.mjcf.load_mjcf` reads the model from the elements.
"""

from __future__ import annotations

import xml.parsers.expat
from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import ModelError, excerpt_path
from ..core.files import NotRegularFile, file_label, read_regular_file
from .file_values import quote as _q

#: Largest MJCF input read, in bytes, the main file and its includes together.
MAX_MJCF_BYTES = 10_000_000
#: Most XML elements of a model, its includes counted (MuJoCo Menagerie's largest models
#: have a few thousand).
MAX_MJCF_ELEMENTS = 100_000
#: Deepest nesting of XML elements (a humanoid's body tree is about 15 bodies deep).
MAX_MJCF_DEPTH = 200
#: Most included files, and the deepest chain of includes.
MAX_MJCF_INCLUDES = 100
MAX_INCLUDE_DEPTH = 10


@dataclass(eq=False)
class MjcfElement:
    """One XML element: tag, attributes, children, and where it was written."""

    tag: str
    attrib: dict[str, str]
    source: str
    line: int
    children: list[MjcfElement] = field(default_factory=list)

    def where(self, what: str = "") -> str:
        """``file:line: <tag name='...'> what``, to start a message about the element."""
        name = self.attrib.get("name")
        label = f"<{self.tag}{' name=' + _q(name) if name else ''}>"
        return f"{self.source}:{self.line}: {label}{' ' + what if what else ''}"



# -- reading XML safely --------------------------------------------------------------------
class MjcfReader:
    """Parses the main file and its includes under shared byte, element and depth budgets."""

    def __init__(self, main: Path):
        self.main = main
        self.folder = main.resolve().parent
        self.bytes = 0
        self.elements = 0
        self.included: set[Path] = set()

    def read(self, path: Path, depth: int, origin: str = "") -> MjcfElement:
        """The root element of the file ``path`` (``origin``: the ``<include>`` that names
        it, for a message), within what is left of the byte budget."""
        source = file_label(path)
        try:
            data = read_regular_file(path, MAX_MJCF_BYTES - self.bytes)
        except NotRegularFile as exc:
            raise ModelError(f"{origin or file_label(source)}: {exc.strerror}; an MJCF model "
                             "is a file") from None
        except OSError as exc:
            raise ModelError(f"{origin or file_label(source)}: cannot read the MJCF file "
                             f"({exc.strerror or exc})") from None
        self.bytes += len(data)
        if self.bytes > MAX_MJCF_BYTES:
            raise ModelError(f"{source}: the model (with its includes) is larger than "
                             f"{MAX_MJCF_BYTES:,} bytes; an MJCF model is well under 1 MB "
                             "(meshes are separate files)")
        return self._parse(data, source)

    def _parse(self, data: bytes, source: str) -> MjcfElement:
        parser = xml.parsers.expat.ParserCreate()
        parser.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)
        stack: list[MjcfElement] = []
        top: list[MjcfElement] = []

        def refuse(*_args):
            raise ModelError(f"{source}:{parser.CurrentLineNumber}: a document type "
                             "declaration (<!DOCTYPE ...>, entities); MJCF has none and "
                             "robodyn reads none (no entity is expanded): remove it")

        def start(tag, attrib):
            self.elements += 1
            if self.elements > MAX_MJCF_ELEMENTS:
                raise ModelError(f"{source}:{parser.CurrentLineNumber}: more than "
                                 f"{MAX_MJCF_ELEMENTS:,} XML elements; a robot's MJCF has a "
                                 "few thousand at most")
            if len(stack) >= MAX_MJCF_DEPTH:
                raise ModelError(f"{source}:{parser.CurrentLineNumber}: <{tag}> is nested "
                                 f"more than {MAX_MJCF_DEPTH} elements deep")
            node = MjcfElement(tag, dict(attrib), source, parser.CurrentLineNumber)
            (stack[-1].children if stack else top).append(node)
            stack.append(node)

        parser.StartDoctypeDeclHandler = refuse
        parser.EntityDeclHandler = refuse
        parser.ExternalEntityRefHandler = refuse
        parser.StartElementHandler = start
        parser.EndElementHandler = lambda tag: stack.pop()
        try:
            parser.Parse(data, True)
        except xml.parsers.expat.ExpatError as exc:
            raise ModelError(f"{source}: not valid XML ({exc}); an MJCF file is an XML "
                             "document with a <mujoco> element") from None
        except LookupError as exc:  # <?xml encoding="x-bogus"?>
            raise ModelError(f"{source}: the XML declaration names an encoding Python does "
                             f"not know ({exc}); write the file in UTF-8 and say "
                             "encoding=\"utf-8\" (or leave it out)") from None
        return top[0]

    def expand_includes(self, node: MjcfElement, depth: int, level: int = 1) -> None:
        """Replace each ``<include file>`` below ``node`` (nested ``level`` deep) by the
        children of the included file's root element (MuJoCo's rule), recursively; the
        nesting limit holds for the files together."""
        out: list[MjcfElement] = []
        for child in node.children:
            if level + 1 > MAX_MJCF_DEPTH:
                raise ModelError(f"{child.where()}: is nested more than {MAX_MJCF_DEPTH} "
                                 "elements deep (with the files that include it)")
            if child.tag != "include":
                self.expand_includes(child, depth, level + 1)
                out.append(child)
                continue
            included = self._include(child, depth + 1)
            self.expand_includes(included, depth + 1, level)  # its root is dropped
            out.extend(included.children)
        node.children = out

    def _include(self, node: MjcfElement, depth: int) -> MjcfElement:
        name = node.attrib.get("file")
        if not name:
            raise ModelError(f"{node.where()}: no file attribute")
        if depth > MAX_INCLUDE_DEPTH:
            raise ModelError(f"{node.where()}: includes nested more than {MAX_INCLUDE_DEPTH} "
                             "deep")
        target = (self.folder / name).resolve()
        if not target.is_relative_to(self.folder):
            raise ModelError(f"{node.where()}: file={excerpt_path(name)} is outside the folder of "
                             f"{self.main.name} ({self.folder}); robodyn includes only files "
                             "in the model's folder or below it: copy the file there")
        if target in self.included or target == self.main.resolve():
            raise ModelError(f"{node.where()}: file={_q(name)} is included twice (or "
                             "includes itself); MuJoCo includes a file once")
        if len(self.included) >= MAX_MJCF_INCLUDES:
            raise ModelError(f"{node.where()}: more than {MAX_MJCF_INCLUDES} included files")
        self.included.add(target)
        return self.read(target, depth, origin=node.where(f"file={_q(name)}"))
