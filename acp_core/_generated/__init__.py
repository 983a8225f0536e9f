"""Generated value-class methods (tools/generate_values.py)."""
