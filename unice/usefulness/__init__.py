"""CodeScore trained on human usefulness grades (CoNaLa; issue 44, ``make usefulness``).

``folds``: the outer/inner fold split and the rows a fold model trains on; ``selection``: the
pre-registered arm rule (configs/experiment/usefulness.yaml); ``study``: the study's own stored
metric scores as a column file and their agreement with ours; ``report``: the usefulness report.
The driver is ``scripts/usefulness.py`` (run by ``scripts/usefulness.sh``).
"""
