"""acp_core layer `_rules`: see acp_core/__init__.py for the map.

Loading any module of this layer loads the catalogue and the checker first, so that what they
declare downward is always there when asked: each rule's revision scope
(`Revision.applies`, declared by `_catalogue`) and what the checker decides (`Rule.checked`,
declared by `_check`). Neither the revisions nor the catalogue import what declares to them.
"""

from . import _check as _check  # declares the scopes and the checked rules
