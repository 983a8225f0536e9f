"""acp_core layer `_wire`: see acp_core/__init__.py for the map."""
