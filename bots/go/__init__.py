"""Go (9x9 first-class, square boards 2..25): the rules and immutable State (board.py), the numba kernels (kernel.py)."""
