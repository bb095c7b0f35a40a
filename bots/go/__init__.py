"""Go (9x9 first-class, square boards 2..25): rules, the immutable State and the fast Board (board.py)."""
