"""Loading a module directory: module.yaml placement and its checks, definition files, errors."""

from __future__ import annotations

import contextlib
import os
import tempfile
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterplace.defkit import (
    ComponentDefinition,
    PolicyDefinition,
    TraitDefinition,
    WorkflowStepDefinition,
)
from clusterplace.defkit.module import load_module, module_placement
from clusterplace.defkit.placement import LabelCondition, PlacementConstraints
from clusterplace.errors import InputError
from tests.support.defkit import EXAMPLE, SEED_CUE, tabs

VALID_OPERATORS = "valid operators: Eq, Ne, In, NotIn, Exists, NotExists"

HEAD = """\
apiVersion: core.oam.dev/v1beta1
kind: DefinitionModule
metadata:
  name: test-module
spec:
"""


def _make(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def _load_error(root: Path) -> str:
    with pytest.raises(InputError) as caught:
        load_module(root)
    return str(caught.value)


COMPONENT = """\
from clusterplace import defkit

defkit.register(defkit.component("{name}"))
"""

_REGISTER = "from clusterplace import defkit\ndefkit.register(defkit.{kind}('{name}'))\n"


# --- module.yaml ----------------------------------------------------------------------


def test_the_example_module_yaml_placement_becomes_a_placement_spec() -> None:
    module = load_module(EXAMPLE)
    assert module.placement == PlacementConstraints(
        run_on=[
            LabelCondition("region", "Exists"),
            LabelCondition("provider", "In", ["aws", "gcp", "azure", "on-prem"]),
            LabelCondition("environment", "Ne", ["development"]),
        ],
        not_run_on=[LabelCondition("cluster-type", "Eq", ["vcluster"])],
    )
    assert [str(c) for c in module.placement.run_on] == [
        "region exists",
        "provider in (aws, gcp, azure, on-prem)",
        "environment != development",
    ]
    assert module.name == "my-platform"
    assert module.warnings == []
    assert [(d.definition.KIND, d.definition.name, d.path.name) for d in module.definitions] == [
        ("ComponentDefinition", "placement-demo", "placement_demo.py"),
        ("TraitDefinition", "gpu-resources", "gpu_tolerations.py"),
        ("PolicyDefinition", "eu-data-residency", "eu_data_residency.py"),
    ]


def test_no_placement_block_and_no_metadata_give_an_empty_spec(tmp_path: Path) -> None:
    root = _make(tmp_path, {"module.yaml": HEAD + "  description: plain\n"})
    assert load_module(root).placement.is_empty()
    assert module_placement(None) == PlacementConstraints()


@pytest.mark.parametrize("operator", ["Equals", "eq", "==", "NotEqual", '""', "exists"])
def test_an_unknown_operator_is_an_error_naming_file_line_and_entry(
    tmp_path: Path, operator: str
) -> None:
    root = _make(
        tmp_path,
        {
            "module.yaml": HEAD
            + "  placement:\n"
            + "    runOn:\n"
            + "      - key: env\n"
            + f"        operator: {operator}\n"
            + '        values: ["prod"]\n'
        },
    )
    shown = operator.strip('"')
    assert _load_error(root) == (
        f"{root / 'module.yaml'}:8: DefinitionModule/test-module: spec.placement.runOn[0]: "
        f'invalid operator "{shown}" (key="env"); {VALID_OPERATORS}'
    )


@pytest.mark.parametrize("operator", ["Eq", "Ne", "In", "NotIn"])
@pytest.mark.parametrize("values", ["", "        values: []\n"], ids=["absent", "empty"])
def test_missing_values_for_an_operator_that_needs_them_is_an_error(
    tmp_path: Path, operator: str, values: str
) -> None:
    root = _make(
        tmp_path,
        {
            "module.yaml": HEAD
            + "  placement:\n"
            + "    runOn:\n"
            + "      - key: region\n"
            + "        operator: Exists\n"
            + "    notRunOn:\n"
            + "      - key: env\n"
            + f"        operator: {operator}\n"
            + values
        },
    )
    assert _load_error(root) == (
        f"{root / 'module.yaml'}:11: DefinitionModule/test-module: spec.placement.notRunOn[0]: "
        f'operator {operator} (key="env") requires at least one value'
    )


def test_every_bad_entry_is_reported(tmp_path: Path) -> None:
    root = _make(
        tmp_path,
        {
            "module.yaml": HEAD
            + "  placement:\n"
            + "    runOn:\n"
            + "      - key: env\n"
            + "        operator: Equals\n"
            + '        values: ["prod"]\n'
            + "    notRunOn:\n"
            + "      - key: a\n"
            + "        operator: Exists\n"
            + "      - key: b\n"
            + "        operator: In\n"
        },
    )
    path = root / "module.yaml"
    assert _load_error(root).splitlines() == [
        f"{path}:8: DefinitionModule/test-module: spec.placement.runOn[0]: "
        f'invalid operator "Equals" (key="env"); {VALID_OPERATORS}',
        f"{path}:14: DefinitionModule/test-module: spec.placement.notRunOn[1]: "
        'operator In (key="b") requires at least one value',
    ]


def test_values_given_to_exists_and_not_exists_are_ignored_with_a_warning(tmp_path: Path) -> None:
    root = _make(
        tmp_path,
        {
            "module.yaml": HEAD
            + "  placement:\n"
            + "    runOn:\n"
            + "      - key: gpu\n"
            + "        operator: Exists\n"
            + '        values: ["yes"]\n'
            + "    notRunOn:\n"
            + "      - key: legacy\n"
            + "        operator: NotExists\n"
            + '        values: ["x", "y"]\n'
        },
    )
    module = load_module(root)
    path = root / "module.yaml"
    assert module.warnings == [
        f"{path}:10: DefinitionModule/test-module: spec.placement.runOn[0].values: "
        "values are ignored for operator Exists",
        f"{path}:14: DefinitionModule/test-module: spec.placement.notRunOn[0].values: "
        "values are ignored for operator NotExists",
    ]
    assert [str(c) for c in module.placement.run_on] == ["gpu exists"]
    assert [str(c) for c in module.placement.not_run_on] == ["legacy not exists"]
    assert module.placement.run_on[0].evaluate({"gpu": "no"})


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ("values: prod", 'spec.placement.runOn[0].values: must be a list, not string "prod"'),
        ("values: [yes]", "spec.placement.runOn[0].values[0]: must be a string, but yes was read"),
    ],
)
def test_values_of_the_wrong_yaml_type_are_errors(
    tmp_path: Path, values: str, message: str
) -> None:
    root = _make(
        tmp_path,
        {
            "module.yaml": HEAD
            + "  placement:\n"
            + "    runOn:\n"
            + "      - key: env\n"
            + "        operator: In\n"
            + f"        {values}\n"
        },
    )
    assert _load_error(root).startswith(
        f"{root / 'module.yaml'}:10: DefinitionModule/test-module: {message}"
    )


def test_unknown_module_yaml_keys_are_refused(tmp_path: Path) -> None:
    """A deliberate difference: upstream ignores unknown keys, so a typo silently turns
    a hook or a condition off (docs/semantics.md, "CEL cost and hooks")."""
    root = _make(tmp_path, {"module.yaml": HEAD + "  someFutureField: 1\n  description: d\n"})
    assert "spec.someFutureField: unknown field 'someFutureField'" in _load_error(root)


def test_a_missing_module_yaml_is_fine(tmp_path: Path) -> None:
    root = _make(tmp_path / "bare", {"components/web.py": COMPONENT.format(name="web")})
    module = load_module(root)
    assert module.metadata is None
    assert module.name == "bare"
    assert module.placement.is_empty()
    assert module.warnings == []
    assert [d.definition.name for d in module.definitions] == ["web"]


def test_a_module_directory_that_does_not_exist_is_an_error(tmp_path: Path) -> None:
    assert _load_error(tmp_path / "nowhere") == (
        f'module directory "{tmp_path / "nowhere"}" does not exist'
    )


# --- Python definition files ----------------------------------------------------------


def test_definitions_load_by_type_directory_then_file_name_skipping_private_files(
    tmp_path: Path,
) -> None:
    root = _make(
        tmp_path,
        {
            "workflowsteps/notify.py": (
                "from clusterplace import defkit\ndefkit.register(defkit.workflow_step('notify'))\n"
            ),
            "policies/p.py": _REGISTER.format(kind="policy", name="p"),
            "traits/b.py": _REGISTER.format(kind="trait", name="b"),
            "traits/a.py": (
                "from clusterplace import defkit\n"
                "defkit.register(defkit.trait('a2'))\n"
                "defkit.register(defkit.trait('a1'))\n"
            ),
            "components/web.py": COMPONENT.format(name="web"),
            "components/_private.py": "raise RuntimeError('never loaded')\n",
            "components/.hidden.py": "raise RuntimeError('never loaded')\n",
            "components/README.md": "not a definition\n",
            "other/ignored.py": "raise RuntimeError('never loaded')\n",
        },
    )
    module = load_module(root)
    assert [(type(d.definition), d.definition.name) for d in module.definitions] == [
        (ComponentDefinition, "web"),
        (TraitDefinition, "a2"),
        (TraitDefinition, "a1"),
        (TraitDefinition, "b"),
        (PolicyDefinition, "p"),
        (WorkflowStepDefinition, "notify"),
    ]
    assert module.count("trait") == 3
    assert module.count("workflow-step") == 1


def test_a_definition_file_can_import_a_private_sibling(tmp_path: Path) -> None:
    root = _make(
        tmp_path,
        {
            "components/_web_shared_for_test.py": "NAME = 'shared-web'\n",
            "components/web.py": (
                "from _web_shared_for_test import NAME\n"
                "from clusterplace import defkit\n"
                "defkit.register(defkit.component(NAME))\n"
            ),
        },
    )
    assert [d.definition.name for d in load_module(root).definitions] == ["shared-web"]


ERRORS: list[tuple[str, str, str]] = [
    ("raise", "import os\n\nraise RuntimeError('boom')\n", "3: RuntimeError: boom"),
    (
        "name error",
        "from clusterplace import defkit\n\ndefkit.register(defkit.component(nam))\n",
        "3: NameError: name 'nam' is not defined",
    ),
    (
        "in a helper",
        "def helper():\n    return {}['missing']\n\n\nhelper()\n",
        "2: KeyError: 'missing'",
    ),
    (
        "import",
        "import os\nimport not_a_module_anywhere\n",
        "2: ModuleNotFoundError: No module named 'not_a_module_anywhere'",
    ),
    ("syntax", "x = 1\ndef (\n", "2: SyntaxError: invalid syntax (web.py, line 2)"),
    (
        "invalid placement",
        "from clusterplace import defkit\n"
        "from clusterplace.defkit.placement import Label\n"
        "\n"
        "defkit.register(\n"
        "    defkit.trait('bad')\n"
        "    .run_on(Label('cloud').eq('aws'))\n"
        "    .not_run_on(Label('cloud').eq('aws'))\n"
        ")\n",
        "4: defkit: invalid placement for definition 'bad': conflicting placement constraints: "
        "identical condition 'cloud = aws' in both RunOn and NotRunOn - definition may never be "
        "eligible to run",
    ),
]


@pytest.mark.parametrize(
    ("source", "expected"), [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS]
)
def test_a_failing_definition_file_is_an_error_with_file_and_line(
    tmp_path: Path, source: str, expected: str
) -> None:
    root = _make(tmp_path, {"components/web.py": source})
    assert _load_error(root) == f"{root / 'components' / 'web.py'}:{expected}"


def test_every_failing_file_is_reported(tmp_path: Path) -> None:
    root = _make(
        tmp_path,
        {
            "components/a.py": "raise ValueError('first')\n",
            "components/ok.py": COMPONENT.format(name="ok"),
            "traits/b.py": "\nraise ValueError('second')\n",
        },
    )
    assert _load_error(root).splitlines() == [
        f"{root / 'components' / 'a.py'}:1: ValueError: first",
        f"{root / 'traits' / 'b.py'}:2: ValueError: second",
    ]


def test_the_same_name_in_two_files_is_an_error(tmp_path: Path) -> None:
    root = _make(
        tmp_path,
        {
            "components/a.py": COMPONENT.format(name="web"),
            "components/b.py": COMPONENT.format(name="web"),
        },
    )
    first, second = root / "components" / "a.py", root / "components" / "b.py"
    assert _load_error(root) == (
        f"{second}: ComponentDefinition web is defined twice; the first definition is in {first}"
    )


def test_the_same_name_twice_in_one_file_is_an_error(tmp_path: Path) -> None:
    root = _make(
        tmp_path,
        {
            "traits/t.py": (
                "from clusterplace import defkit\n"
                "defkit.register(defkit.trait('dup'))\n"
                "defkit.register(defkit.trait('dup'))\n"
            )
        },
    )
    path = root / "traits" / "t.py"
    assert _load_error(root) == (
        f"{path}: TraitDefinition dup is defined twice; the first definition is in {path}"
    )


def test_a_py_file_and_a_cue_file_with_the_same_name_is_an_error(tmp_path: Path) -> None:
    root = _make(
        tmp_path,
        {
            "components/a.py": COMPONENT.format(name="placement-demo"),
            "components/b.cue": SEED_CUE.read_text(encoding="utf-8"),
        },
    )
    assert "ComponentDefinition placement-demo is defined twice" in _load_error(root)


def test_the_same_name_for_two_kinds_is_allowed(tmp_path: Path) -> None:
    root = _make(
        tmp_path,
        {
            "components/web.py": COMPONENT.format(name="web"),
            "traits/web.py": _REGISTER.format(kind="trait", name="web"),
        },
    )
    assert [d.definition.KIND for d in load_module(root).definitions] == [
        "ComponentDefinition",
        "TraitDefinition",
    ]


# --- CUE definition files -------------------------------------------------------------


def test_a_cue_file_is_a_raw_definition_with_name_type_and_description_from_the_cue(
    tmp_path: Path,
) -> None:
    seed = SEED_CUE.read_text(encoding="utf-8")
    root = _make(tmp_path, {"components/placement-demo.cue": seed})
    [loaded] = load_module(root).definitions
    definition = loaded.definition
    assert isinstance(definition, ComponentDefinition)
    assert definition.name == "placement-demo"
    assert definition.description_text == (
        "Demonstrates cluster placement: RunOn (provider+env) and NotRunOn (vcluster)"
    )
    assert definition.placement.is_empty()
    assert definition.to_cue() == seed


LEGACY = """\
// A hand-written trait.
legacy: {
\ttype: "trait"
\tannotations: {}
\tlabels: {}
\tdescription: "Adds a \\"legacy\\" label"
}
template: {
\tpatch: {
\t\tmetadata: {
\t\t\tlabels: {
\t\t\t\tlegacy: "true"
\t\t\t}
\t\t}
\t}
\tparameter: {}
}
"""


@pytest.mark.parametrize("directory", ["traits", "components", "policies"])
def test_the_type_written_in_the_cue_decides_the_kind(tmp_path: Path, directory: str) -> None:
    root = _make(tmp_path, {f"{directory}/legacy.cue": LEGACY})
    [loaded] = load_module(root).definitions
    assert isinstance(loaded.definition, TraitDefinition)
    assert loaded.definition.name == "legacy"
    assert loaded.definition.description_text == 'Adds a "legacy" label'
    assert loaded.definition.to_cue() == LEGACY


def test_a_cue_file_with_an_unknown_type_is_an_error_with_its_line(tmp_path: Path) -> None:
    root = _make(tmp_path, {"traits/legacy.cue": LEGACY.replace('"trait"', '"widget"')})
    assert _load_error(root) == (
        f'{root / "traits" / "legacy.cue"}:3: unknown definition type "widget"; '
        "valid: component, trait, policy, workflow-step"
    )


def test_a_cue_file_without_a_definition_is_an_error(tmp_path: Path) -> None:
    root = _make(tmp_path, {"traits/empty.cue": "// nothing here\n"})
    assert _load_error(root) == (
        f"{root / 'traits' / 'empty.cue'}: no definition found: expected a top-level "
        '"<name>": { type: "..." ... } block'
    )


def test_a_cue_description_with_non_ascii_text_is_read_as_written(tmp_path: Path) -> None:
    text = LEGACY.replace('Adds a \\"legacy\\" label', "Café — résumé ✓")
    root = _make(tmp_path, {"traits/legacy.cue": text})
    [loaded] = load_module(root).definitions
    assert loaded.definition.description_text == "Café — résumé ✓"
    manifest = loaded.definition.to_manifest("vela-system")
    assert manifest["metadata"]["annotations"] == {
        "definition.oam.dev/description": "Café — résumé ✓"
    }


def test_the_type_is_read_from_the_header_even_after_attributes(tmp_path: Path) -> None:
    # Field order in the header is free in CUE: here attributes.workload.type comes first.
    text = tabs(
        """
        "web": {
            annotations: {}
            attributes: {
                workload: {
                    definition: {
                        apiVersion: "apps/v1"
                        kind:       "Deployment"
                    }
                    type: "deployments.apps"
                }
            }
            type: "component"
            description: "Web"
        }
        template: {
            parameter: {}
        }
        """
    )
    root = _make(tmp_path, {"components/web.cue": text})
    [loaded] = load_module(root).definitions
    assert isinstance(loaded.definition, ComponentDefinition)
    assert loaded.definition.name == "web"


def test_a_cue_file_written_by_gen_module_applies_the_same_definition(tmp_path: Path) -> None:
    # placement-demo.cue (gen-module's output for the Python definition) loaded as a
    # .cue file: same manifest, so spec.workload comes from attributes.workload and the
    # template is the body of template: {...}.
    example = next(
        d.definition
        for d in load_module(EXAMPLE).definitions
        if d.definition.name == "placement-demo"
    )
    root = _make(tmp_path, {"components/placement-demo.cue": example.to_cue()})
    [loaded] = load_module(root).definitions
    manifest = loaded.definition.to_manifest("vela-system")
    expected = example.to_manifest("vela-system")
    assert manifest["spec"]["schematic"] == expected["spec"]["schematic"]
    assert manifest["spec"].get("workload") == expected["spec"]["workload"]
    assert manifest == expected


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "  hooks:\n    preApply: []\n",
            "spec.hooks.preApply: unknown field 'preApply'; did you mean 'pre-apply'?",
        ),
        ("  hook: {}\n", "spec.hook: unknown field 'hook'; did you mean 'hooks'?"),
        (
            "  placement:\n    runOn:\n      - {key: a, operator: Exists, extra: 1}\n",
            "spec.placement.runOn[0].extra: unknown field 'extra'",
        ),
        (
            "  placement:\n    runOn:\n      - {key: 'bad key!', operator: Exists}\n",
            'spec.placement.runOn[0].key: invalid label key "bad key!"',
        ),
        (
            "  hooks:\n    pre-apply:\n      - {script: 'true', timeout: nan}\n",
            'timeout: invalid duration "nan"',
        ),
        (
            "  hooks:\n    pre-apply:\n      - {script: 'true', timeout: -5s}\n",
            'timeout "-5s" must be more than 0 and at most 24h',
        ),
        (
            "  hooks:\n    pre-apply:\n      - {script: 'true', timeout: 25h}\n",
            'timeout "25h" must be more than 0 and at most 24h',
        ),
        (
            "  hooks:\n    pre-apply:\n      - {optional: true}\n",
            "spec.hooks.pre-apply[0]: a hook needs a path (manifests) or a script",
        ),
        (
            "  hooks:\n    post-apply:\n      - {path: x, script: 'true'}\n",
            "spec.hooks.post-apply[0]: a hook has a path or a script, not both",
        ),
        ("  hooks:\n    pre-apply:\n      - {script: ' '}\n", "a hook's script is empty"),
    ],
)
def test_module_yaml_typos_are_refused(tmp_path: Path, body: str, message: str) -> None:
    root = _make(tmp_path, {"module.yaml": HEAD + body})
    assert message in _load_error(root)


def test_exit_in_a_definition_file_is_a_located_error(tmp_path: Path) -> None:
    root = _make(tmp_path, {"components/x.py": "import sys\n\nsys.exit(0)\n"})
    error = _load_error(root)
    assert error.startswith(f"{root / 'components' / 'x.py'}:3: the file called exit(0)")


def test_a_base_exception_in_a_definition_file_is_a_located_error(tmp_path: Path) -> None:
    root = _make(tmp_path, {"components/x.py": "\nraise BaseException('odd')\n"})
    assert _load_error(root) == f"{root / 'components' / 'x.py'}:2: BaseException: odd"


def test_a_definition_file_cannot_make_the_loader_lose_definitions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file that changes the working directory would make every later relative path
    find nothing, so definitions of later folders vanished without a word."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    _make(
        tmp_path / "mod",
        {
            "components/a.py": f"import os\nos.chdir({str(outside)!r})\n"
            + COMPONENT.format(name="web"),
            "traits/t.py": _REGISTER.format(kind="trait", name="gpu"),
        },
    )
    monkeypatch.chdir(tmp_path)
    module = load_module("mod")  # relative, as a user types it
    assert [d.definition.name for d in module.definitions] == ["web", "gpu"]
    assert Path.cwd() == tmp_path


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p.mkdir(), "is a directory, not a regular file"),
        (lambda p: os.mkfifo(p), "is a pipe, socket or device, not a regular file"),
        (lambda p: p.symlink_to("/dev/zero"), "is a pipe, socket or device, not a regular file"),
        (lambda p: p.symlink_to(p.parent / "gone"), "dangling symlink"),
    ],
)
@pytest.mark.parametrize("name", ["components/x.py", "components/x.cue", "module.yaml"])
def test_module_files_must_be_regular_files(
    tmp_path: Path, make: Callable[[Path], None], message: str, name: str
) -> None:
    """Never read for ever (a FIFO, /dev/zero) nor crash (a folder named x.cue)."""
    (tmp_path / "components").mkdir()
    make(tmp_path / name)
    assert _load_error(tmp_path).startswith(f"{tmp_path / name}: {message}")


def test_a_module_path_with_a_comma_is_one_path(tmp_path: Path) -> None:
    root = _make(tmp_path / "a,b", {"module.yaml": HEAD + "  description: d\n"})
    assert load_module(root).metadata is not None


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        (
            "components/x.py",
            "from clusterplace import defkit\n\ndefkit.register(defkit.component('Web'))\n",
            3,
        ),
        ("components/x.cue", '// a comment\n\n"Web": {\n\ttype: "component"\n}\n', 3),
    ],
)
def test_an_invalid_definition_name_is_located(
    tmp_path: Path, name: str, text: str, line: int
) -> None:
    root = _make(tmp_path, {name: text})
    assert _load_error(root).startswith(
        f'{root / name}:{line}: ComponentDefinition name "Web" is invalid: a lowercase RFC 1123'
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '"x": {\n\ttype: "component"\n\tattributes: '
            + "{a: " * 5000
            + "1"
            + "}" * 5000
            + "\n}\n",
            ":3: cannot read CUE: nested more than 128 levels deep",
        ),
        ('"a\\q": {\n\ttype: "component"\n}\n', ':1: cannot read CUE: invalid string label "a\\q"'),
    ],
)
def test_odd_cue_is_a_located_error(tmp_path: Path, text: str, message: str) -> None:
    root = _make(tmp_path, {"components/x.cue": text})
    assert _load_error(root).startswith(f"{root / 'components' / 'x.cue'}{message}")


_cueish = st.text(alphabet=st.sampled_from('"ab:{}[]()\\ \n\t/,'), max_size=200)


@settings(max_examples=300, deadline=None)
@given(_cueish)
def test_any_cue_like_text_loads_or_is_an_input_error(text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "components").mkdir()
        (Path(folder) / "components" / "x.cue").write_text(text)
        with contextlib.suppress(InputError):
            load_module(folder)
