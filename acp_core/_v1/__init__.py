"""acp_core layer `_v1`: see acp_core/__init__.py for the map."""
