"""`Revision` reprs are short, so `help()` of functions defaulting to one stays readable."""

from __future__ import annotations

import pydoc

import attrs

from acp_core._wire._revision import DEFAULT_REVISION, REVISIONS


def test_registered_revision_repr_is_its_name() -> None:
    for name, revision in REVISIONS.items():
        assert repr(revision) == f"Revision({revision.name!r})", name


def test_unregistered_revision_repr_says_so() -> None:
    copy = attrs.evolve(DEFAULT_REVISION, meta_patch_merges=not DEFAULT_REVISION.meta_patch_merges)
    assert repr(copy) == f"Revision({copy.name!r}, unregistered)"


def test_help_of_a_revision_default_is_short() -> None:
    import acp_core as acp

    text = pydoc.render_doc(acp.check_trace, renderer=pydoc.plaintext)
    assert f"Revision({DEFAULT_REVISION.name!r})" in text
    assert len(text.splitlines()[2]) < 400
