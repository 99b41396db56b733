"""Inputs of the UniCE model: formats, priority truncation, layout tokens, datasets, collation
and problem-grouped batches."""
