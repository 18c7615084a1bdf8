"""``apply-module``, ``validate-module``, ``gen-module`` and ``plan-module`` end to end.

The seed's Cases A/B/C: the same placement-demo module applied to three cluster
identities (the vela-cluster-identity ConfigMap). The command runs in process (the
``run`` fixture): a table of invocations costs milliseconds each.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import yaml

from clusterplace.defkit import Definition
from clusterplace.defkit.module import load_module
from clusterplace.outputs.dumpers import dump_yaml_stream
from tests.support.cli import Result
from tests.support.defkit import SEED_CUE, template_body
from tests.support.paths import ROOT

Run = Callable[..., Result]

EXAMPLE = "examples/my-platform"
DEMO_FILE = "componentdefinition.core.oam.dev_vela-system_placement-demo.yaml"
TRAIT_FILE = "traitdefinition.core.oam.dev_vela-system_gpu-resources.yaml"
POLICY_FILE = "policydefinition.core.oam.dev_vela-system_eu-data-residency.yaml"
HOOK_FILE = "configmap_vela-system_platform-settings.yaml"
SEED_DESCRIPTION = "Demonstrates cluster placement: RunOn (provider+env) and NotRunOn (vcluster)"

IDENTITIES: dict[str, dict[str, str]] = {
    "A": {"dummy": "placeholder"},
    "B": {"region": "us-west-2", "provider": "aws", "environment": "production"},
    "C": {
        "region": "us-west-2",
        "provider": "aws",
        "environment": "production",
        "cluster-type": "vcluster",
    },
}

HEADER = """\
Loading module from examples/my-platform...

Module: examples/my-platform
Description: Platform definitions — known providers with a region, not development, no vcluster.

Definitions:
  Components:     1
  Traits:         1
  Policies:       1
  Workflow Steps: 0

Checking placement constraints...
"""

CASE_A_SKIP = (
    "  ✗ ComponentDefinition placement-demo: skipped (runOn conditions not satisfied: "
    "region exists, all(any(provider in (aws, gcp, azure) OR provider = on-prem) AND "
    "environment != development))\n"
)
CASE_C_SKIP = (
    "  ✗ ComponentDefinition placement-demo: skipped "
    "(excluded by notRunOn: cluster-type = vcluster)\n"
)


def _run_all(run: Run, calls: Sequence[Sequence[str]]) -> list[Result]:
    """Run independent invocations one after the other; results in the order given."""
    return [run(*args) for args in calls]


def _identity_file(directory: Path, case: str) -> Path:
    path = directory / f"identity-{case}.yaml"
    config_map = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "vela-cluster-identity", "namespace": "vela-system"},
        "data": IDENTITIES[case],
    }
    path.write_text(yaml.safe_dump(config_map, sort_keys=False), encoding="utf-8")
    return path


def _labels(case: str) -> str:
    return ",".join(f"{k}={v}" for k, v in IDENTITIES[case].items())


def _tree(root: Path) -> dict[str, bytes]:
    if not root.exists():
        return {}
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def _example(name: str) -> Definition:
    module = load_module(ROOT / EXAMPLE)
    return next(d.definition for d in module.definitions if d.definition.name == name)


def _stale_copy(out: Path, name: str = "placement-demo") -> bytes:
    """An installed copy that differs from what the module would write; returns its bytes."""
    manifest = _example(name).to_manifest("vela-system")
    manifest["metadata"]["annotations"] = {"definition.oam.dev/description": "installed earlier"}
    text = dump_yaml_stream([manifest]).encode()
    out.mkdir(parents=True, exist_ok=True)
    file_name = {"placement-demo": DEMO_FILE, "eu-data-residency": POLICY_FILE}[name]
    (out / file_name).write_bytes(text)
    return text


def _load(data: bytes) -> Any:
    return yaml.safe_load(data.decode())


def _check_demo_manifest(
    data: bytes, name: str = "placement-demo", ns: str = "vela-system"
) -> None:
    manifest = _load(data)
    assert manifest["apiVersion"] == "core.oam.dev/v1beta1"
    assert manifest["kind"] == "ComponentDefinition"
    assert manifest["metadata"] == {
        "name": name,
        "namespace": ns,
        "annotations": {"definition.oam.dev/description": SEED_DESCRIPTION},
    }
    assert manifest["spec"] == {
        "workload": {
            "definition": {"apiVersion": "apps/v1", "kind": "Deployment"},
            "type": "deployments.apps",
        },
        "schematic": {"cue": {"template": template_body(SEED_CUE.read_text(encoding="utf-8"))}},
    }


# --- the seed's Cases A, B, C ---------------------------------------------------------


def test_seed_cases_b_then_a_and_c_leave_the_installed_copy_untouched(run, golden, tmp_path):
    out = tmp_path / "out"
    apply = ("apply-module", EXAMPLE, "--out", str(out), "--conflict=overwrite", "-t", "component")

    b = run(*apply, "--labels-from", str(_identity_file(tmp_path, "B")))
    assert (b.code, b.stderr) == (0, "")
    golden("module-apply-case-b.txt", b.stdout)
    assert b.stdout == HEADER + (
        "Cluster labels: environment=production, provider=aws, region=us-west-2\n"
        "\n"
        "  ✓ ComponentDefinition placement-demo: eligible\n"
        "ComponentDefinition placement-demo created in namespace vela-system\n"
        "\n"
        "Complete: created: 1\n"
    )
    installed = _tree(out)
    assert list(installed) == [DEMO_FILE]
    _check_demo_manifest(installed[DEMO_FILE])
    mtime = (out / DEMO_FILE).stat().st_mtime_ns

    # One after the other: runs writing the same folder take turns (its lock).
    a = run(*apply, "--labels-from", str(_identity_file(tmp_path, "A")))
    c = run(*apply, "--labels-from", str(_identity_file(tmp_path, "C")))
    assert (a.code, a.stderr) == (0, "")
    golden("module-apply-case-a.txt", a.stdout)
    assert a.stdout == HEADER + (
        "Cluster labels: dummy=placeholder\n\n" + CASE_A_SKIP + "\nComplete: placement-skipped: 1\n"
    )
    assert (c.code, c.stderr) == (0, "")
    golden("module-apply-case-c.txt", c.stdout)
    assert c.stdout == HEADER + (
        "Cluster labels: cluster-type=vcluster, environment=production, provider=aws, "
        "region=us-west-2\n\n" + CASE_C_SKIP + "\nComplete: placement-skipped: 1\n"
    )
    assert _tree(out) == installed
    assert (out / DEMO_FILE).stat().st_mtime_ns == mtime


def test_labels_flag_is_equivalent_to_labels_from(run, golden, tmp_path):
    cases = ["A", "B", "C"]
    results = _run_all(
        run,
        [
            (
                "apply-module",
                EXAMPLE,
                "--labels",
                _labels(case),
                "--out",
                str(tmp_path / case),
                "--conflict=overwrite",
                "-t",
                "component",
            )
            for case in cases
        ],
    )
    for case, result in zip(cases, results, strict=True):
        assert (result.code, result.stderr) == (0, ""), case
        golden(f"module-apply-case-{case.lower()}.txt", result.stdout)
    assert _tree(tmp_path / "A") == _tree(tmp_path / "C") == {}
    assert list(_tree(tmp_path / "B")) == [DEMO_FILE]
    _check_demo_manifest(_tree(tmp_path / "B")[DEMO_FILE])


# --- apply-module flags ---------------------------------------------------------------


def test_dry_run_evaluates_placement_prints_the_yaml_and_writes_nothing(run, tmp_path):
    out = tmp_path / "out"
    _stale_copy(out)
    before = _tree(out)
    result = run("apply-module", EXAMPLE, "--labels", _labels("B"), "--out", str(out), "--dry-run")
    assert (result.code, result.stderr) == (0, "")
    assert result.stdout.startswith(HEADER)
    body = result.stdout[len(HEADER) :]
    eligible = "  ✓ ComponentDefinition placement-demo: eligible\n"
    assert body.startswith(
        "Cluster labels: environment=production, provider=aws, region=us-west-2\n\n" + eligible
    )
    document, rest = body[body.index(eligible) + len(eligible) :].split("---\n", 1)
    assert yaml.safe_load(document) == _example("placement-demo").to_manifest("vela-system")
    assert rest == (
        "  ✗ TraitDefinition gpu-resources: skipped "
        "(runOn conditions not satisfied: accelerator exists)\n"
        "  ✗ PolicyDefinition eu-data-residency: skipped "
        "(runOn conditions not satisfied: location = europe)\n"
        "\n"
        "Dry-run complete: would apply: 1, placement-skipped: 2\n"
    )
    assert _tree(out) == before


def test_ignore_placement_warns_and_applies_every_definition(run, tmp_path):
    out = tmp_path / "out"
    result = run(
        "apply-module", EXAMPLE, "--labels", _labels("A"), "--ignore-placement", "--out", str(out)
    )
    assert (result.code, result.stderr) == (0, "")
    assert "Checking placement constraints" not in result.stdout
    assert "✗" not in result.stdout
    assert result.stdout.endswith(
        "Workflow Steps: 0\n"
        "\n"
        "Warning: Ignoring placement constraints (--ignore-placement)\n"
        "\n"
        "ComponentDefinition placement-demo created in namespace vela-system\n"
        "TraitDefinition gpu-resources created in namespace vela-system\n"
        "PolicyDefinition eu-data-residency created in namespace vela-system\n"
        "\n"
        "Complete: created: 3\n"
    )
    assert sorted(_tree(out)) == sorted([DEMO_FILE, TRAIT_FILE, POLICY_FILE])
    _check_demo_manifest(_tree(out)[DEMO_FILE])


def test_stats_prefix_and_namespace(run, golden, tmp_path):
    result = run(
        *("apply-module", EXAMPLE, "--labels", _labels("B"), "--out", str(tmp_path)),
        *("--stats", "-p", "acme-", "-n", "platform"),
    )
    assert (result.code, result.stderr) == (0, "")
    golden("module-apply-stats.txt", result.stdout)
    assert result.stdout.endswith(
        "  ✓ ComponentDefinition acme-placement-demo: eligible\n"
        "ComponentDefinition acme-placement-demo created in namespace platform\n"
        "  ✗ TraitDefinition acme-gpu-resources: skipped "
        "(runOn conditions not satisfied: accelerator exists)\n"
        "  ✗ PolicyDefinition acme-eu-data-residency: skipped "
        "(runOn conditions not satisfied: location = europe)\n"
        "\n"
        "Complete: created: 1, placement-skipped: 2\n"
        "\n"
        "─────────────────────────────────────────\n"
        "Detailed Statistics\n"
        "─────────────────────────────────────────\n"
        "\n"
        "Definitions by type:\n"
        "  Components:        1\n"
        "\n"
        "Definitions by action:\n"
        "  Created:           1\n"
        "  Updated:           0\n"
        "  Skipped:           0\n"
        "  Failed:            0\n"
        "\n"
        "Placement:\n"
        "  Evaluated:         3\n"
        "  Eligible:          1\n"
        "  Skipped:           2\n"
    )
    files = _tree(tmp_path)
    assert list(files) == ["componentdefinition.core.oam.dev_platform_acme-placement-demo.yaml"]
    _check_demo_manifest(next(iter(files.values())), name="acme-placement-demo", ns="platform")


CONFLICTS: list[tuple[str, list[str], int, str, str]] = [
    (
        "fail (default)",
        [],
        1,
        "",
        "error: definition ComponentDefinition placement-demo already exists in namespace "
        "vela-system (use --conflict=overwrite to update)\n",
    ),
    (
        "skip",
        ["--conflict", "skip"],
        0,
        "Skipping ComponentDefinition placement-demo (already exists)\n\nComplete: skipped: 1\n",
        "",
    ),
    (
        "rename",
        ["-c", "rename"],
        0,
        "ComponentDefinition placement-demo-1 created in namespace vela-system\n\n"
        "Complete: created: 1\n",
        "",
    ),
    (
        "overwrite",
        ["--conflict=overwrite"],
        0,
        "ComponentDefinition placement-demo updated in namespace vela-system\n\n"
        "Complete: updated: 1\n",
        "",
    ),
]


def test_conflict_strategies_on_an_installed_definition(run, tmp_path):
    calls, olds = [], []
    for index, (_, flags, *_rest) in enumerate(CONFLICTS):
        out = tmp_path / str(index)
        olds.append(_stale_copy(out))
        calls.append(
            (
                *("apply-module", EXAMPLE, "--labels", _labels("B"), "-t", "component"),
                *("--out", str(out), *flags),
            )
        )
    results = _run_all(run, calls)
    for index, ((name, _, code, tail, stderr), result, old) in enumerate(
        zip(CONFLICTS, results, olds, strict=True)
    ):
        assert (result.code, result.stderr) == (code, stderr), name
        assert result.stdout.endswith(tail), name
        files = _tree(tmp_path / str(index))
        if name.startswith("fail"):
            assert files == {DEMO_FILE: old}, name
            assert "created" not in result.stdout, name
        elif name == "skip":
            assert files == {DEMO_FILE: old}, name
        elif name == "rename":
            renamed = "componentdefinition.core.oam.dev_vela-system_placement-demo-1.yaml"
            assert set(files) == {DEMO_FILE, renamed}, name
            assert files[DEMO_FILE] == old, name
            _check_demo_manifest(files[renamed], name="placement-demo-1")
        else:
            assert list(files) == [DEMO_FILE], name
            _check_demo_manifest(files[DEMO_FILE])


def test_a_conflict_late_in_the_run_writes_nothing(run, tmp_path):
    out = tmp_path / "out"
    old = _stale_copy(out, "eu-data-residency")
    result = run("apply-module", EXAMPLE, "--ignore-placement", "--out", str(out))
    assert result.code == 1
    assert result.stderr == (
        "error: definition PolicyDefinition eu-data-residency already exists in namespace "
        "vela-system (use --conflict=overwrite to update)\n"
    )
    assert _tree(out) == {POLICY_FILE: old}


def _strategy_error(strategy: str) -> str:
    # A fixed choice: click refuses it as a usage error (exit code 2).
    return (
        f"Invalid value for '-c' / '--conflict': '{strategy}' is not one of "
        "'skip', 'overwrite', 'fail', 'rename'."
    )


REFUSED: list[tuple[str, list[str], int, str]] = [
    ("strategy SKIP", ["--labels", "a=b", "-c", "SKIP"], 2, _strategy_error("SKIP")),
    ("strategy update", ["--labels", "a=b", "--conflict=update"], 2, _strategy_error("update")),
    (
        "no label source",
        [],
        2,
        "where do the cluster's labels come from? give --labels, --labels-from or "
        "--kubeconfig (or --ignore-placement)",
    ),
    (
        "two label sources",
        ["--labels", "a=b", "--labels-from", "identity.yaml"],
        2,
        "give only one of --labels, --labels-from and --kubeconfig",
    ),
]


def test_bad_invocations_are_refused_and_write_nothing(run, tmp_path):
    out = tmp_path / "out"
    results = _run_all(
        run, [("apply-module", EXAMPLE, "--out", str(out), *flags) for _, flags, _, _ in REFUSED]
    )
    for (name, _, code, message), result in zip(REFUSED, results, strict=True):
        assert (result.code, result.stdout) == (code, ""), name
        if code == 1:
            assert result.stderr == message, name
        else:  # a usage error: click's usage lines, then the message
            assert result.stderr.endswith(f"Error: {message}\n"), name
    assert not out.exists()


# --- hooks ----------------------------------------------------------------------------

SETTINGS = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: platform-settings
data:
  tier: gold
"""

FAILING = "echo boom >&2; exit 3"


def _hooked_module(root: Path, hooks: str) -> Path:
    shutil.copytree(ROOT / EXAMPLE, root)
    (root / "hooks").mkdir()
    (root / "hooks" / "settings.yaml").write_text(SETTINGS, encoding="utf-8")
    with (root / "module.yaml").open("a", encoding="utf-8") as module_yaml:
        module_yaml.write("  hooks:\n" + hooks)
    return root


PATH_AND_ECHO = (
    "    pre-apply:\n      - path: hooks/settings.yaml\n    post-apply:\n      - script: echo hi\n"
)


def test_hooks_run_even_when_every_definition_is_placement_skipped(run, tmp_path):
    module = _hooked_module(tmp_path / "module", PATH_AND_ECHO)
    out, skipped = tmp_path / "out", tmp_path / "skipped"
    ran, skip = _run_all(
        run,
        [
            ("apply-module", str(module), "--labels", _labels("A"), "--out", str(out)),
            (
                "apply-module",
                str(module),
                "--labels",
                _labels("A"),
                "--out",
                str(skipped),
                "--skip-hooks",
            ),
        ],
    )
    assert (ran.code, ran.stderr) == (0, "")
    assert (
        "Cluster labels: dummy=placeholder\n"
        "\n"
        "Running pre-apply hooks...\n"
        "  ✓ hooks/settings.yaml: 1 created, 0 updated\n"
        "\n" + CASE_A_SKIP
    ) in ran.stdout
    assert (
        "  ✗ PolicyDefinition eu-data-residency: skipped "
        "(runOn conditions not satisfied: location = europe)\n"
        "Running post-apply hooks...\n"
        "  ✓ echo hi\n"
    ) in ran.stdout
    assert ran.stdout.endswith("Complete: placement-skipped: 3\n")
    files = _tree(out)
    assert list(files) == [HOOK_FILE]
    assert _load(files[HOOK_FILE]) == {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "platform-settings", "namespace": "vela-system"},
        "data": {"tier": "gold"},
    }

    assert (skip.code, skip.stderr) == (0, "")
    assert "Running" not in skip.stdout
    assert skip.stdout.endswith("Complete: placement-skipped: 3\n")
    assert _tree(skipped) == {}


def test_a_failing_hook_stops_the_run_unless_it_is_optional(run, tmp_path):
    required = _hooked_module(
        tmp_path / "required",
        f"    pre-apply:\n      - path: hooks/settings.yaml\n      - script: {FAILING}\n",
    )
    optional = _hooked_module(
        tmp_path / "optional",
        "    pre-apply:\n      - path: hooks/settings.yaml\n"
        f"      - script: {FAILING}\n        optional: true\n",
    )
    stopped, went_on = _run_all(
        run,
        [
            ("apply-module", str(required), "--ignore-placement", "--out", str(tmp_path / "o1")),
            ("apply-module", str(optional), "--ignore-placement", "--out", str(tmp_path / "o2")),
        ],
    )
    assert stopped.code == 1
    assert stopped.stderr == f"error: pre-apply hook {FAILING} failed: exit code 3: boom\n"
    assert "created in namespace" not in stopped.stdout
    assert _tree(tmp_path / "o1") == {}

    assert (went_on.code, went_on.stderr) == (0, "")
    assert (
        "Running pre-apply hooks...\n"
        "  ✓ hooks/settings.yaml: 1 created, 0 updated\n"
        f"  ✗ {FAILING}: exit code 3: boom (optional, continuing)\n"
    ) in went_on.stdout
    assert went_on.stdout.endswith("Complete: created: 3\n")
    assert sorted(_tree(tmp_path / "o2")) == sorted([DEMO_FILE, HOOK_FILE, POLICY_FILE, TRAIT_FILE])


# --- validate-module, gen-module, plan-module -----------------------------------------

NEVER = """\
from clusterplace import defkit
from clusterplace.defkit.placement import Label

defkit.register(
    defkit.component("never")
    .run_on(Label("k").eq("aws"))
    .not_run_on(Label("k").ne("gcp"))
)
"""

BAD_OPERATOR = """\
apiVersion: core.oam.dev/v1beta1
kind: DefinitionModule
metadata:
  name: bad
spec:
  placement:
    runOn:
      - key: env
        operator: Equals
        values: ["prod"]
"""


def test_validate_module(run, tmp_path):
    never = tmp_path / "never"
    (never / "components").mkdir(parents=True)
    (never / "components" / "never.py").write_text(NEVER, encoding="utf-8")
    example, lenient, strict = _run_all(
        run,
        [
            ("validate-module", EXAMPLE),
            ("validate-module", str(never)),
            ("validate-module", str(never), "--strict"),
        ],
    )
    for result in (example, lenient):
        assert (result.code, result.stdout, result.stderr) == (0, "Module validation passed.\n", "")

    assert (strict.code, strict.stderr) == (1, "")
    first, second, *more = strict.stdout.splitlines()
    assert (first, more) == ("Validation failed with 1 error(s):", [])
    path = never / "components" / "never.py"
    assert second.startswith(
        f"  - ComponentDefinition never ({path}): conflicting placement constraints: "
    )
    assert "k != gcp" in second
    assert second.endswith(" - definition may never be eligible to run")


def test_a_bad_module_yaml_operator_stops_every_command(run, tmp_path):
    bad = tmp_path / "bad"
    shutil.copytree(ROOT / EXAMPLE, bad)
    (bad / "module.yaml").write_text(BAD_OPERATOR, encoding="utf-8")
    out, gen = tmp_path / "out", tmp_path / "gen"
    validate, *others = _run_all(
        run,
        [
            ("validate-module", str(bad)),
            ("apply-module", str(bad), "--labels", _labels("B"), "--out", str(out)),
            ("gen-module", str(bad), "--output-dir", str(gen)),
            ("plan-module", str(bad), "-f", "examples/fleet"),
        ],
    )
    expected = (
        f"error: {bad / 'module.yaml'}:8: DefinitionModule/bad: spec.placement.runOn[0]: "
        'invalid operator "Equals" (key="env"); '
        "valid operators: Eq, Ne, In, NotIn, Exists, NotExists\n"
    )
    assert (validate.code, validate.stdout, validate.stderr) == (1, "", expected)
    for result in others:
        assert (result.code, result.stderr) == (1, expected)
        assert "created" not in result.stdout
    assert not out.exists()
    assert not gen.exists()


def test_gen_module_writes_each_definitions_cue(run, tmp_path):
    result = run("gen-module", str(ROOT / EXAMPLE), cwd=tmp_path)
    assert (result.code, result.stderr) == (0, "")
    assert result.stdout == "Generated 3 definition(s) in cue-generated\n"
    expected = {
        "components/placement-demo.cue": _example("placement-demo").to_cue().encode(),
        "traits/gpu-resources.cue": _example("gpu-resources").to_cue().encode(),
        "policies/eu-data-residency.cue": _example("eu-data-residency").to_cue().encode(),
    }
    assert _tree(tmp_path / "cue-generated") == expected
    assert expected["components/placement-demo.cue"] == SEED_CUE.read_bytes()


def test_plan_module_on_the_example_fleet(run, golden):
    outputs = ["table", "wide"]
    results = _run_all(
        run, [("plan-module", EXAMPLE, "-f", "examples/fleet", "-o", output) for output in outputs]
    )
    for output, result in zip(outputs, results, strict=True):
        assert (result.code, result.stderr) == (0, ""), output
        golden(f"plan-module-{output}.txt", result.stdout)
