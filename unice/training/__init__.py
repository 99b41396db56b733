"""Training UniCE models: optimizer groups, the accelerate loop, checkpoints and export."""
