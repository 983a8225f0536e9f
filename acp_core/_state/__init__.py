"""acp_core layer `_state`: see acp_core/__init__.py for the map."""
