"""bots: a daemon that plays board games against tournament servers."""

__version__ = "0.1.0"
