"""The tests, as packages: `tests.go.oracle` imports, and two games may have test files of one name."""
