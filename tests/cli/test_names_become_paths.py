"""Names from the input never make clusterplace write, or read, outside its folders."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.cli import Result

Run = Callable[..., Result]

MODULE_YAML = """apiVersion: core.oam.dev/v1beta1
kind: DefinitionModule
metadata:
  name: m
spec:
  hooks:
    pre-apply:
      - path: {path}
"""


def _module(root: Path, cue_name: str = "web", hook: str | None = None) -> Path:
    module = root / "module"
    (module / "components").mkdir(parents=True)
    (module / "components" / "web.cue").write_text(
        f'"{cue_name}": {{\n  type: "component"\n}}\ntemplate: {{}}\n', encoding="utf-8"
    )
    if hook is not None:
        (module / "module.yaml").write_text(MODULE_YAML.format(path=hook), encoding="utf-8")
    return module


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_a_definition_name_that_climbs_out_is_refused_everywhere(run: Run, tmp_path: Path) -> None:
    module = _module(tmp_path, cue_name="../../../esc")
    before = _files(tmp_path)
    for args in (
        ["validate-module", "--strict", str(module)],
        ["gen-module", str(module), "--output-dir", str(tmp_path / "gen")],
        [
            "apply-module",
            str(module),
            "--skip-hooks",
            "--labels",
            "a=b",
            "--out",
            str(tmp_path / "o"),
        ],
    ):
        result = run(*args)
        assert result.code == 1, args
        assert 'ComponentDefinition name "../../../esc" is invalid' in result.stderr
        assert "Traceback" not in result.stderr
    assert _files(tmp_path) == before


@pytest.mark.parametrize("prefix", ["../../", "UP", "a/"])
def test_a_prefix_that_makes_bad_names_is_refused_before_anything_runs(
    run: Run, tmp_path: Path, prefix: str
) -> None:
    module = _module(tmp_path)
    result = run(
        "apply-module", str(module), "-p", prefix, "--labels", "a=b", "--out", str(tmp_path / "o")
    )
    assert result.code == 1 and "nothing was applied" in result.stderr
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("hook", ["../outside.yaml", "/etc/hostname", "link/x.yaml"])
def test_hook_paths_must_stay_inside_the_module(run: Run, tmp_path: Path, hook: str) -> None:
    module = _module(tmp_path, hook=hook)
    (tmp_path / "outside.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    (module / "link").symlink_to(tmp_path)
    for args in (
        ["validate-module", str(module)],
        ["apply-module", str(module), "--labels", "a=b"],
    ):
        result = run(*args)
        assert result.code == 1, (args, result.stdout)
        assert "hook path" in result.stderr
        assert "module.yaml:8" in result.stderr


def test_a_hook_manifest_with_a_bad_name_writes_nothing(run: Run, tmp_path: Path) -> None:
    module = _module(tmp_path, hook="hooks")
    (module / "hooks").mkdir()
    (module / "hooks" / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ../../../esc}\n", encoding="utf-8"
    )
    out = tmp_path / "o"
    result = run("apply-module", str(module), "--labels", "a=b", "--out", str(out))
    assert result.code == 1
    assert 'metadata.name: Invalid value: "../../../esc"' in result.stdout + result.stderr
    assert not out.exists() or _files(out) == []
    assert not (tmp_path / "esc.yaml").exists()
    for strict in ((), ("--strict",)):  # validate-module reads hook manifests as apply does
        checked = run("validate-module", str(module), *strict)
        assert checked.code == 1
        assert "cm.yaml:3: ConfigMap/../../../esc: metadata.name: Invalid value" in checked.stderr


def test_validate_module_warns_of_a_hook_path_that_is_not_there(run: Run, tmp_path: Path) -> None:
    module = _module(tmp_path, hook="hooks/later.yaml")
    result = run("validate-module", str(module))
    assert result.code == 0
    assert "warning: hook path hooks/later.yaml does not exist" in result.stderr


def test_the_output_store_refuses_a_symlink_that_leads_out(tmp_path: Path) -> None:
    from clusterplace.defkit.stores import DirectoryStore
    from clusterplace.safepath import PathEscapeError

    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "configmap_default_x.yaml").symlink_to(tmp_path)
    store = DirectoryStore(tmp_path / "out")
    obj = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"namespace": "default", "name": "x"},
    }
    with pytest.raises(PathEscapeError):
        store.path_of(obj)


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        ("a==b", "value: a valid label"),
        ("a b=c", "key: name part"),
        ("a!=b", "key: name part"),
        ("a=1,a=2", 'label "a" is given twice'),
        ("x", "is not key=value"),
    ],
)
def test_labels_option_is_strict(run: Run, tmp_path: Path, labels: str, message: str) -> None:
    result = run("apply-module", str(_module(tmp_path)), "--dry-run", "--labels", labels)
    assert result.code == 1 and message in result.stderr
