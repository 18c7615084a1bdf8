"""FileTransaction.write_many: many files staged at once, committed or rolled back as
the files of :meth:`FileTransaction.write` are."""

from __future__ import annotations

from pathlib import Path

import pytest

from clusterplace.outputs import FileTransaction, OutputError
from clusterplace.outputs.journal import JOURNAL_NAME, TEMP_PREFIX


def files_under(folder: Path) -> dict[str, bytes | None]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() if p.is_file() else None
        for p in sorted(folder.rglob("*"))
    }


def test_many_files_are_committed_with_the_others(tmp_path: Path) -> None:
    with FileTransaction(tmp_path) as tx:
        tx.write(tmp_path / "one" / "single.yaml", "single\n")
        tx.write_many([("one/a.yaml", b"a\n"), ("two/b.yaml", b"b\n"), ("top.yaml", b"t\n")])
        tx.write_last(tmp_path / "index.json", "{}\n")
        staged = files_under(tmp_path)
        assert sum(TEMP_PREFIX in name for name in staged) == 5  # nothing in place yet
        assert "one/a.yaml" not in staged
        tx.commit()
    assert files_under(tmp_path) == {
        "index.json": b"{}\n",
        "one": None,
        "one/a.yaml": b"a\n",
        "one/single.yaml": b"single\n",
        "top.yaml": b"t\n",
        "two": None,
        "two/b.yaml": b"b\n",
    }
    assert not (tmp_path / JOURNAL_NAME).exists()


def test_a_failure_while_staging_leaves_nothing(tmp_path: Path) -> None:
    (tmp_path / "kept.txt").write_text("mine\n")
    (tmp_path / "blocked").write_text("a file where a folder would go\n")
    before = files_under(tmp_path)
    with pytest.raises(OutputError, match="cannot write"), FileTransaction(tmp_path) as tx:
        tx.write_many([("new/a.yaml", b"a\n"), ("new/b.yaml", b"b\n"), ("blocked/c.yaml", b"c")])
    assert files_under(tmp_path) == before  # temporaries and the folder made are gone


def test_a_nul_in_a_name_is_an_output_error(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match="NUL"), FileTransaction(tmp_path) as tx:
        tx.write_many([("eu/a.yaml", b"a"), ("eu/b\x00.yaml", b"b")])
    assert files_under(tmp_path) == {}
