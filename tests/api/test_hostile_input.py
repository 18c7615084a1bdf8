"""Hostile and odd input: every case ends in a located error, never a traceback, a
crash, or unbounded time and memory."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterplace.codecs import Source, expand_sources, load_fleet
from clusterplace.codecs.loader import LoadError, decode, read_documents, require_unique_identities
from clusterplace.codecs.sources import read_source
from clusterplace.codecs.text_bounds import MAX_ALIAS_NODES, MAX_DEPTH
from clusterplace.errors import InputError, InputErrors
from tests.support.cli import command, run_in_process


def _cli(
    *args: str, stdin: bytes | None = b"", env: dict[str, str] | None = None
) -> tuple[int, str]:
    """``clusterplace ARGS`` in process: its exit code and standard error."""
    result = run_in_process(*args, stdin=stdin, env=env)
    assert "Traceback" not in result.stderr and result.exception is None
    return result.code, result.stderr


def _problems(text: str, name: str = "in.yaml") -> list[str]:
    try:
        load_fleet([Source(name, text)])
    except InputError as err:
        return str(err).splitlines()
    return []


# -- endless, binary and broken streams ----------------------------------------------------


@pytest.mark.parametrize(
    ("device", "message"), [("/dev/zero", "a NUL character"), ("/dev/urandom", "not UTF-8")]
)
def test_endless_devices_are_refused_at_once(device: str, message: str) -> None:
    code, err = _cli("get", "clusters", "-f", device)
    assert code == 1 and message in err


def test_the_size_limit_covers_files_and_stdin_alike(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("# " + "x" * 200 + "\n")
    env = {"CLUSTERPLACE_MAX_INPUT_BYTES": "100"}
    for args, stdin in ((["-f", str(big)], None), (["-f", "-"], big.read_bytes())):
        code, err = _cli("get", "clusters", *args, stdin=stdin, env=env)
        assert code == 1 and "larger than the limit of 100 bytes" in err


def test_non_utf8_and_nul_are_located() -> None:
    code, err = _cli("get", "clusters", "-f", "-", stdin=b"a: 1\nb: \xff\n")
    assert code == 1 and "<stdin>:2: column 4: not UTF-8 text (byte 0xff)" in err
    with pytest.raises(InputError, match="column 3: a NUL character") as found:
        read_source(io.BytesIO(b"ok\nab\x00"), "x.yaml")
    assert found.value.location.line == 2


def test_a_closed_stdin_is_an_error_and_an_empty_one_is_empty() -> None:
    """Real processes: standard input is the process's file descriptor 0."""
    empty = subprocess.run(
        [*command(), "get", "clusters", "-f", "-"], stdin=subprocess.DEVNULL, capture_output=True
    )
    assert empty.returncode == 0 and b"No resources found" in empty.stderr
    script = (
        "import sys; sys.stdin.close(); from clusterplace.cli.main import main; "
        "sys.exit(main(['get', 'clusters', '-f', '-']))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 1 and "standard input (-) is closed" in done.stderr


def test_json_is_read_the_same_from_stdin_and_from_a_file(tmp_path: Path) -> None:
    text = '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"},}\n'
    path = tmp_path / "cm.json"
    path.write_text(text)
    code, from_file = _cli("get", "clusters", "-f", str(path))
    code_stdin, from_stdin = _cli("get", "clusters", "-f", "-", stdin=text.encode())
    assert code == code_stdin == 1
    assert from_file.replace(str(path), "<stdin>") == from_stdin
    assert "invalid JSON" in from_stdin


# -- nesting and aliases ---------------------------------------------------------------------


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 1_000, 40_000])
@pytest.mark.parametrize("style", ["flow", "block", "json"])
def test_deep_nesting_is_refused_before_any_parser_recurses(depth: int, style: str) -> None:
    if style == "flow":
        text = "[" * depth + "]" * depth + "\n"
    elif style == "block":
        text = "".join("  " * i + "a:\n" for i in range(min(depth, 2_000))) + "  " * depth + "x\n"
    else:
        text = '{"a":' * depth + "1" + "}" * depth
    (problem,) = _problems(text, "in.json" if style == "json" else "in.yaml")
    assert f"nested more than {MAX_DEPTH} levels deep" in problem


def test_deep_json_is_located_at_its_line() -> None:
    text = '{"apiVersion": "v1", "kind": "ConfigMap",\n "metadata": {"name": "x"},\n "data": '
    (problem,) = _problems(text + "[" * 300 + "]" * 300 + "}", "in.json")
    assert problem.startswith(f"in.json:3: nested more than {MAX_DEPTH} levels deep"), problem


def test_json_inside_values_is_bounded_too(tmp_path: Path) -> None:
    """A cluster-selector annotation, the route index and the journal are JSON that
    the input controls: too deep is a located error, never a RecursionError."""
    deep = "[" * 100_000 + "]" * 100_000
    annotation = "federation.alpha.kubernetes.io/cluster-selector"
    manifest = tmp_path / "cm.json"
    manifest.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "x", "namespace": "a", "annotations": {annotation: deep}},
            }
        )
    )
    fleet = str(Path(__file__).resolve().parents[2] / "examples" / "fleet")
    out = tmp_path / "out"
    code, err = _cli("route", "-f", str(manifest), "--clusters", fleet, "--output-dir", str(out))
    assert code == 1 and "ConfigMap/a/x" in err and "nested more than 128 levels deep" in err
    assert not out.exists()
    manifest = tmp_path / "cm.yaml"
    manifest.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: a}\n")
    for name, message in [
        (".clusterplace-route.json", "is not a clusterplace route index"),
        (".clusterplace-journal.json", "not a clusterplace journal"),
    ]:
        out.mkdir(exist_ok=True)
        (out / name).write_text(deep)
        code, err = _cli(
            "route", "-f", str(manifest), "--clusters", fleet, "--output-dir", str(out)
        )
        assert code == 1 and message in err, err
        (out / name).unlink()


def test_nesting_up_to_the_limit_is_fine() -> None:
    depth = MAX_DEPTH - 10
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {}\nx: " + (
        "[" * depth + "]" * depth
    )
    assert all("nested" not in p for p in _problems(text))


def test_an_alias_bomb_is_refused_quickly() -> None:
    lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x","x"]']
    lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    (problem,) = _problems("\n".join(lines) + "\n")
    assert f"aliases expand to more than {MAX_ALIAS_NODES} nodes" in problem


def test_a_recursive_alias_is_refused() -> None:
    (problem,) = _problems("a: &x [1, *x]\n")
    assert "refers to its own anchor" in problem


def test_modest_aliases_still_work() -> None:
    text = (
        "apiVersion: v1\nkind: List\nitems:\n"
        "- {apiVersion: v1, kind: ConfigMap, metadata: {name: x, labels: &l {a: b}}}\n"
        "- {apiVersion: v1, kind: ConfigMap, metadata: {name: y, labels: *l}}\n"
    )
    assert _problems(text) == []


# -- message sizes ---------------------------------------------------------------------------


def test_at_most_twenty_problems_are_listed_then_counted() -> None:
    labels = "".join(f"    k{i}: 'bad value {i}'\n" for i in range(30))
    text = f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels:\n{labels}"
    lines = _problems(text)
    assert len(lines) == 21 and lines[-1] == "... and 10 more problems"


def test_quoted_values_are_cut_short() -> None:
    text = (
        f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels: {{k: '{'v ' * 5000}'}}\n"
    )
    (line,) = _problems(text)
    assert len(line) < 800 and "more characters)" in line


# -- misleading messages, fixed --------------------------------------------------------------


def test_yaml_boolean_keys_are_named_as_written_with_the_right_advice() -> None:
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels:\n    yes: b\n"
    (line,) = _problems(text)
    assert line.startswith("in.yaml:6: ConfigMap/x: metadata.labels: key yes was read")
    assert 'quote it, e.g. "yes"' in line


def test_null_is_called_null() -> None:
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels:\n    a: ~\n"
    (line,) = _problems(text)
    assert "must be a string, not null" in line and "NoneType" not in line


def test_a_list_without_a_list_of_items() -> None:
    (line,) = _problems("apiVersion: v1\nkind: List\nitems: 5\n")
    assert "in.yaml:3: List/<no name>: items: a List needs items: a list of objects" in line


@pytest.mark.parametrize(
    ("api", "message"),
    [
        (
            "cluster.open-cluster-managment.io/v1",
            "did you mean cluster.open-cluster-management.io/v1?",
        ),
        ("5", "apiVersion: must be a non-empty string, not integer 5"),
    ],
)
def test_bad_api_versions_are_blamed_on_the_api_version(api: str, message: str) -> None:
    (line,) = _problems(f"apiVersion: {api}\nkind: ManagedCluster\nmetadata: {{name: c1}}\n")
    assert message in line and ":1: " in line


def test_another_projects_kind_of_the_same_name_is_not_a_typo() -> None:
    text = "apiVersion: example.com/v1\nkind: Placement\nmetadata: {name: p}\n"
    assert _problems(text) == []


def test_an_object_without_a_namespace_is_the_one_in_default() -> None:
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\n"
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: default}\n"
    )
    with pytest.raises(LoadError, match="defined twice"):
        require_unique_identities(read_documents([Source("in.yaml", text)]))
    pass_through = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\n"
    with pytest.raises(LoadError, match="defined twice"):
        require_unique_identities(
            read_documents(
                [
                    Source("a.yaml", pass_through),
                    Source(
                        "b.yaml", pass_through.replace("{name: x}", "{name: x, namespace: default}")
                    ),
                ]
            )
        )


# -- directories -----------------------------------------------------------------------------


def test_directory_entries_are_never_skipped_silently(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "ok.yaml").write_text("")
    (tmp_path / "gone.yaml").symlink_to(tmp_path / "nowhere.yaml")
    with pytest.raises(InputError, match="dangling symlink"):
        expand_sources([str(tmp_path)])
    (tmp_path / "gone.yaml").unlink()
    (tmp_path / "loop.yaml").symlink_to(tmp_path / "loop.yaml")
    with pytest.raises(InputError, match="symlink loop"):
        expand_sources([str(tmp_path)])
    (tmp_path / "loop.yaml").unlink()
    os.mkfifo(tmp_path / "pipe.yaml")
    with pytest.raises(InputError, match="not a regular file"):
        expand_sources([str(tmp_path)])
    (tmp_path / "pipe.yaml").unlink()
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "up").symlink_to(tmp_path)
    with pytest.raises(InputError, match="directory symlink loop"):
        expand_sources([str(tmp_path)], recursive=True)
    (tmp_path / "sub" / "up").unlink()

    def refuse(path: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "scandir", refuse)  # root reads any directory: inject it
    with pytest.raises(InputError, match="cannot read directory: Permission denied"):
        expand_sources([str(tmp_path)])


# -- properties ------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_give_objects_or_an_input_error(data: bytes) -> None:
    try:
        source = read_source(io.BytesIO(data), "x.yaml")
        decode(read_documents([source]), keep_unknown=True)
    except InputError:
        pass


_yamlish = st.text(alphabet=st.sampled_from("ab:-[]{}&*!,'\"\n #|>~?0"), max_size=120)


@settings(max_examples=500, deadline=None)
@given(_yamlish)
def test_any_yaml_like_text_gives_objects_or_an_input_error(text: str) -> None:
    with contextlib.suppress(InputError, InputErrors):
        require_unique_identities(read_documents([Source("x.yaml", text)]))
