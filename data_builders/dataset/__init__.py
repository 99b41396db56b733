"""Dataset assembly: labels, splits, statistics, the dataset card and resumable storage."""
