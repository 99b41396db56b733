"""Console scripts of the ``unice`` package."""
