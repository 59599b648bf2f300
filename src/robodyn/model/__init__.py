"""The robot description, separate from the algorithms: the chain of links and joints
(:mod:`~robodyn.model.chain`), DH tables (:mod:`~robodyn.model.dh`), safe expressions
(:mod:`~robodyn.model.expressions`), and the loaders of YAML model files
(:mod:`~robodyn.model.yaml_file`) and URDF (:mod:`~robodyn.model.urdf`), which return a
:class:`~robodyn.model.source.ModelSource`."""
