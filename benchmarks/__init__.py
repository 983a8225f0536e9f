"""Benchmarks of acp-core's reducers (not tests: run `python benchmarks/run.py`)."""
