"""Go (9x9 first-class, square boards 2..25): the rules and immutable State (board.py), the numba kernels
(kernel.py)."""

from bots.cache import configure_numba

configure_numba()  # before anything here imports numba (search.uct included): compiled code is cached per user
