"""UniCE: learned code-evaluation metrics (CodeScore) trained by unified code execution learning."""

__version__ = "0.1.0"
