"""The package root is curated and lazy: a few dozen names for the common path, every other
public name in its home submodule, every 0.1 name still served from the root, and
`import acp_core` loads none of the implementation until a name is used."""

from __future__ import annotations

import subprocess
import sys

import pytest

import acp_core

SUBMODULES = (
    "values",
    "intents",
    "connection",
    "engines",
    "codec",
    "sessions",
    "checker",
    "protocol",
    "v1",
    "errors",
)


def test_the_root_is_curated() -> None:
    assert 30 <= len(acp_core.__all__) <= 60
    assert set(acp_core.__all__) <= set(acp_core._HOME)


def test_every_public_name_has_one_home_submodule_and_the_root_still_serves_it() -> None:
    served = {name for sub in SUBMODULES for name in getattr(acp_core, sub).__all__}
    assert served == set(acp_core._HOME)
    for name, module in acp_core._HOME.items():
        assert getattr(acp_core, name) is getattr(sys.modules[module], name), name


def test_from_import_of_an_old_root_name_works() -> None:
    from acp_core import PVec, TextContent, ToolCallUpdate  # noqa: F401  (moved in 0.2)

    assert TextContent is acp_core.values.TextContent


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        acp_core.no_such_name  # type: ignore[attr-defined]  # noqa: B018


def test_importing_the_package_loads_no_implementation_module() -> None:
    code = "import sys, acp_core; print(sorted(m for m in sys.modules if m.startswith('acp_core')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['acp_core']"


def test_a_whole_module_group_serves_every_name_of_its_module() -> None:
    # `("module", "*")` in `_DEFINED_IN`: a name added to the module's `__all__` is served
    # (and listed in docs/api.md) without a line in the root.
    import importlib
    import warnings

    whole = [module for module, names in acp_core._DEFINED_IN if names == "*"]
    assert whole
    for module in whole:
        names = importlib.import_module(module).__all__
        assert names
        for name in names:
            assert acp_core._HOME[name] == module, name
            with warnings.catch_warnings():  # a moved-name warning, as for every 0.1 alias
                warnings.simplefilter("ignore", DeprecationWarning)
                assert getattr(acp_core, name) is getattr(sys.modules[module], name)
