"""acp_core layer `_rules`: see acp_core/__init__.py for the map."""
