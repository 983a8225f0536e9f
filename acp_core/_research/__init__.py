"""acp_core layer `_research`: see acp_core/__init__.py for the map."""
