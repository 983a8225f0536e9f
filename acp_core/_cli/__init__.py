"""acp_core layer `_cli`: see acp_core/__init__.py for the map."""
