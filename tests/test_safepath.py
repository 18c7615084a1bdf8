"""Paths made from names never leave their base folder, whatever the name or the links."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clusterplace.safepath import PathEscapeError, is_inside, resolve_inside


def test_plain_names_stay_inside(tmp_path: Path) -> None:
    assert resolve_inside(tmp_path, "a", "b.yaml") == tmp_path.resolve() / "a" / "b.yaml"


@pytest.mark.parametrize(
    "parts",
    [("..",), ("../x",), ("a", "../../x"), ("/etc/passwd",), ("",), ("a\x00b",), (".",), ("a/..",)],
)
def test_escapes_are_refused(tmp_path: Path, parts: tuple[str, ...]) -> None:
    with pytest.raises(PathEscapeError):
        resolve_inside(tmp_path / "base", *parts, what="definition name")


def test_symlink_out_is_refused(tmp_path: Path) -> None:
    base = tmp_path / "base"
    base.mkdir()
    (tmp_path / "outside").mkdir()
    (base / "link").symlink_to(tmp_path / "outside")
    with pytest.raises(PathEscapeError, match="leads outside"):
        resolve_inside(base, "link", "f.yaml")
    assert not is_inside(base, "link")


@given(st.lists(st.text(min_size=0, max_size=12), min_size=1, max_size=4))
def test_whatever_the_name_the_result_is_inside(parts: list[str]) -> None:
    base = Path("/tmp/clusterplace-safepath-prop/base")
    try:
        target = resolve_inside(base, *parts)
    except PathEscapeError:
        return
    root = base.resolve()
    assert target != root and target.is_relative_to(root)
