"""studybot: a study bot for GPU-virtualization and ML-infrastructure interviews."""

__version__ = "0.1.0"
