"""acp_core layer `_engines`: see acp_core/__init__.py for the map."""
