"""Inputs of the UniCE model: formats, fair truncation, layout tokens, datasets and collation."""
