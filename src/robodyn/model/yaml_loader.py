"""Reading a model file's YAML safely: :class:`ModelLoader`, PyYAML's ``SafeLoader`` that
refuses duplicate keys and bounds the nesting and the number of values with aliases
expanded (a 483-byte "billion laughs" file expands to 10**9) before any Python object is
built; its errors are :class:`YamlLimitError`. :func:`robodyn.model.yaml_file.read_model_file`
reads a file with it.
"""

from __future__ import annotations

import re

import yaml

from ..core.csv_table import parse_number
from ..core.errors import excerpt

#: Most values (scalars, lists, mappings) a model file may hold, aliases expanded.
MAX_YAML_NODES = 10_000
#: Deepest nesting of lists and mappings (a model file needs 5).
MAX_YAML_DEPTH = 32


class YamlLimitError(yaml.MarkedYAMLError):
    """A model file breaks one of robodyn's limits (not a YAML syntax error)."""


class ModelLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that rejects duplicate keys, nesting beyond
    :data:`MAX_YAML_DEPTH` and more than :data:`MAX_YAML_NODES` values with aliases
    expanded, all before any Python object is built."""

    def __init__(self, stream):
        super().__init__(stream)
        self._nodes = 0
        self._depth = 0

    def compose_node(self, parent, index):
        self._nodes += 1
        self._depth += 1
        try:
            if self._nodes > MAX_YAML_NODES or self._depth > MAX_YAML_DEPTH:
                too = ("too many values" if self._nodes > MAX_YAML_NODES
                       else "nested too deeply")
                limit = MAX_YAML_NODES if self._nodes > MAX_YAML_NODES else MAX_YAML_DEPTH
                raise YamlLimitError(problem=f"{too} for a model file (limit {limit:,})",
                                  problem_mark=self.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_document(self, node):
        _check_expanded_size(node)
        return super().construct_document(node)

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen: dict = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.setdefault(key, key_node)
                except TypeError:  # unhashable: SafeLoader reports it
                    continue
                if first is not key_node:
                    raise YamlLimitError(
                        problem=f"duplicate key {excerpt(key)} (first at line "
                                f"{first.start_mark.line + 1}); YAML would silently keep "
                                "only the last",
                        problem_mark=key_node.start_mark)
        return super().construct_mapping(node, deep=deep)

    def construct_yaml_int(self, node):
        self._plain_decimal(node)
        try:
            return super().construct_yaml_int(node)
        except ValueError:  # Python refuses to convert integers of more than 4300 digits
            raise YamlLimitError(problem="integer too long", problem_mark=node.start_mark) from None


    def construct_yaml_float(self, node):
        self._plain_decimal(node)
        return super().construct_yaml_float(node)

    @staticmethod
    def _plain_decimal(node) -> None:
        """YAML 1.1 reads ``1_0`` as 10, ``0x10`` as 16, ``1:30`` as 90: the model files take
        plain decimal numbers only, as the CSV tables and the URDF/MJCF readers do
        (:func:`robodyn.core.csv_table.parse_number`); ``.inf``/``.nan`` pass to the checks
        that say they are not finite."""
        text = node.value
        if text.lower().lstrip("+-") in (".inf", ".nan"):
            return
        if re.fullmatch(r"[+-]?0[0-9_]+", text):  # YAML 1.1 reads 010 as octal 8
            raise YamlLimitError(problem=f"{excerpt(text)}: a leading 0 makes an octal number "
                                 "in YAML; write it without the 0",
                                 problem_mark=node.start_mark)
        why = parse_number(text)
        if isinstance(why, str) and "overflows" not in why:  # size: checked where it is used
            raise YamlLimitError(problem=f"{excerpt(text)} is not a plain decimal number "
                                 "(no 1_0, 0x10, 1:30; write e.g. 10, -1.5 or 2e-3)",
                                 problem_mark=node.start_mark)


ModelLoader.add_constructor("tag:yaml.org,2002:int", ModelLoader.construct_yaml_int)
ModelLoader.add_constructor("tag:yaml.org,2002:float", ModelLoader.construct_yaml_float)


def _check_expanded_size(root: yaml.Node) -> None:
    """The number of values with every alias expanded, at most :data:`MAX_YAML_NODES`;
    computed on the graph of composed nodes (shared by aliases) without expanding it."""
    sizes: dict[int, int] = {}
    on_path: set[int] = set()
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        children = _children(node)
        if done:
            on_path.discard(key)
            sizes[key] = 1 + sum(sizes[id(c)] for c in children)
            if sizes[key] > MAX_YAML_NODES:
                raise YamlLimitError(
                    problem=f"more than {MAX_YAML_NODES:,} values with aliases expanded; "
                            "a model file needs far fewer",
                    problem_mark=node.start_mark)
            continue
        if key in sizes:
            continue
        if key in on_path:
            raise YamlLimitError(problem="an alias refers to a value that contains it",
                              problem_mark=node.start_mark)
        on_path.add(key)
        stack.append((node, True))
        stack.extend((c, False) for c in children if id(c) not in sizes)


def _children(node: yaml.Node) -> list:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []
