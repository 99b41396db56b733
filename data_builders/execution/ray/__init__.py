"""The Ray backend: any language's programs on a Ray cluster (``backend="ray"``).

``backend.py``: :class:`~data_builders.execution.ray.backend.RayPool`, actors that each hold
a local pool and label chunks of programs; ``schedule.py``: one ``map`` over those actors.
Nothing is imported here: the subpackage is loaded only when a Ray executor is opened.
"""
