"""The ACP v1 normalizer: turns v1 traffic into v2 values (policies, state and events).

A public submodule of acp-core (docs/api.md lists each name in its home)."""

from __future__ import annotations

from acp_core._v1._normalize import (
    looks_like_v1,
    normalize_v1,
    normalize_v1_step,
)
from acp_core._v1._v1_check import (
    V1_RULES,
    V1Rule,
    check_v1_trace,
    v1_violations,
)
from acp_core._v1._v1_policy import (
    BoundaryPolicy,
    EchoPolicy,
    V1Policy,
)
from acp_core._v1._v1_state import (
    NormalizedEvent,
    NormalizedUpdate,
    PromptError,
    V1Elicitation,
    V1ElicitationAnswer,
    V1Output,
    V1Result,
    V1State,
    new_v1_state,
)

__all__ = [
    "V1_RULES",
    "BoundaryPolicy",
    "EchoPolicy",
    "NormalizedEvent",
    "NormalizedUpdate",
    "PromptError",
    "V1Elicitation",
    "V1ElicitationAnswer",
    "V1Output",
    "V1Policy",
    "V1Result",
    "V1Rule",
    "V1State",
    "check_v1_trace",
    "looks_like_v1",
    "new_v1_state",
    "normalize_v1",
    "normalize_v1_step",
    "v1_violations",
]
