"""defkit definitions rendered to CUE, laid out as ``cue fmt`` would, and to manifests.

The expected layouts were checked against ``cue fmt`` itself: tabs for indentation;
the values of consecutive single-line fields aligned; a comment, or a field whose
value is a struct or list literal (``{}``, ``[...string]``, ``{[string]: string}``),
ends such a run.
"""

from __future__ import annotations

from typing import Any

import pytest

from clusterplace import defkit
from clusterplace.defkit import Definition, Param, Template
from clusterplace.defkit.module import load_module
from clusterplace.defkit.placement import All, ClusterCondition, Label, Not
from clusterplace.defkit.placement import Any as AnyOf
from clusterplace.defkit.template import PathError, parse_path
from tests.support.defkit import EXAMPLE, SEED_CUE, tabs, template_body

SEED_DESCRIPTION = "Demonstrates cluster placement: RunOn (provider+env) and NotRunOn (vcluster)"


def _example(name: str) -> Definition:
    module = load_module(EXAMPLE)
    return next(d.definition for d in module.definitions if d.definition.name == name)


def _placement_demo(
    run_on: tuple[ClusterCondition, ...] = (), not_run_on: tuple[ClusterCondition, ...] = ()
) -> Definition:
    """The seed's placement-demo written again here, with the placement given."""
    image = defkit.string_param("image").description("Container image to run")
    replicas = defkit.int_param("replicas").default(1).description("Number of replicas")
    region = (
        defkit.string_param("region").optional().description("Cloud region label (informational)")
    )

    def template(tpl: Template) -> None:
        vela = defkit.vela_context()
        tpl.output(
            defkit.resource("apps/v1", "Deployment")
            .set("metadata.name", vela.name())
            .set("spec.replicas", replicas)
            .set("spec.selector.matchLabels[app.oam.dev/component]", vela.name())
            .set("spec.template.metadata.labels[app.oam.dev/component]", vela.name())
            .set_if(region.is_set(), "spec.template.metadata.labels[region]", region)
            .set("spec.template.spec.containers[0].name", vela.name())
            .set("spec.template.spec.containers[0].image", image)
        )

    definition: Definition = (
        defkit.component("placement-demo")
        .description(SEED_DESCRIPTION)
        .workload("apps/v1", "Deployment")
        .params(image, replicas, region)
        .template(template)
    )
    if run_on:
        definition.run_on(*run_on)
    if not_run_on:
        definition.not_run_on(*not_run_on)
    return definition


def _parameter_block(definition: Definition) -> str:
    """The lines inside ``template: { parameter: {...} }``, without their indentation."""
    lines = definition.to_cue().splitlines()
    start = lines.index("\tparameter: {")
    end = lines.index("\t}", start)
    return "".join(line.removeprefix("\t\t") + "\n" for line in lines[start + 1 : end])


def _rendered(*params: Param) -> str:
    return _parameter_block(defkit.policy("p").description("d").params(*params))


def _output(res: defkit.Resource) -> str:
    """The CUE of a component whose template outputs ``res``: just the template part."""
    definition: Definition = defkit.component("c").template(lambda tpl: tpl.output(res))
    text = definition.to_cue()
    return text[text.index("template: {") :]


# --- the seed -------------------------------------------------------------------------


def test_the_expected_seed_file_is_in_cue_fmt_layout() -> None:
    text = SEED_CUE.read_text(encoding="utf-8")
    assert text.endswith("}\n")
    for line in text.splitlines():
        stripped = line.lstrip("\t")
        assert not stripped.startswith(" "), f"indented with spaces: {line!r}"
        assert line == line.rstrip(), f"trailing whitespace: {line!r}"
    assert '\t\t\t\tkind:       "Deployment"\n' in text
    assert "\t\t\t\t\t\tname:  context.name\n\t\t\t\t\t\timage: parameter.image\n" in text


def test_placement_demo_of_the_example_module_renders_the_seed_cue_exactly() -> None:
    assert _example("placement-demo").to_cue() == SEED_CUE.read_text(encoding="utf-8")


PLACEMENTS: list[tuple[str, tuple[ClusterCondition, ...], tuple[ClusterCondition, ...]]] = [
    ("none", (), ()),
    ("runOn only", (Label("region").exists(),), ()),
    ("notRunOn only", (), (Label("cluster-type").eq("vcluster"),)),
    (
        "the seed's",
        (
            Label("region").exists(),
            All(
                AnyOf(
                    Label("provider").in_("aws", "gcp", "azure"), Label("provider").eq("on-prem")
                ),
                Label("environment").ne("development"),
            ),
        ),
        (Label("cluster-type").eq("vcluster"),),
    ),
    ("not", (Not(Label("tier").eq("edge")),), (Label("gpu").not_exists(),)),
]


@pytest.mark.parametrize(
    ("run_on", "not_run_on"), [(r, n) for _, r, n in PLACEMENTS], ids=[p[0] for p in PLACEMENTS]
)
def test_placement_never_changes_the_cue_or_the_manifest(
    run_on: tuple[ClusterCondition, ...], not_run_on: tuple[ClusterCondition, ...]
) -> None:
    placed = _placement_demo(run_on, not_run_on)
    plain = _placement_demo()
    assert placed.to_cue() == plain.to_cue() == SEED_CUE.read_text(encoding="utf-8")
    assert placed.to_manifest("vela-system") == plain.to_manifest("vela-system")


def test_the_example_definition_and_its_placement_free_copy_render_identically() -> None:
    loaded = _example("placement-demo")
    assert not loaded.placement.is_empty()
    assert _placement_demo().placement.is_empty()
    assert loaded.to_cue() == _placement_demo().to_cue()
    assert loaded.to_manifest("ns") == _placement_demo().to_manifest("ns")


# --- parameters -----------------------------------------------------------------------

PARAMS: list[tuple[str, Param, str]] = [
    ("string", defkit.string_param("image"), "image: string\n"),
    (
        "string default",
        defkit.string_param("image").default("nginx:stable"),
        'image: *"nginx:stable" | string\n',
    ),
    (
        "string default escaped",
        defkit.string_param("greeting").default('say "hi"\n'),
        'greeting: *"say \\"hi\\"\\n" | string\n',
    ),
    ("int", defkit.int_param("replicas"), "replicas: int\n"),
    ("int default", defkit.int_param("replicas").default(1), "replicas: *1 | int\n"),
    ("bool default false", defkit.bool_param("debug").default(False), "debug: *false | bool\n"),
    ("bool default true", defkit.bool_param("debug").default(True), "debug: *true | bool\n"),
    ("float", defkit.float_param("ratio"), "ratio: number\n"),
    ("float default", defkit.float_param("ratio").default(0.5), "ratio: *0.5 | number\n"),
    ("list", defkit.list_param("tags"), "tags: [...string]\n"),
    (
        "list of int default",
        defkit.list_param("ports", of="int").default([80, 443]),
        "ports: *[80, 443] | [...int]\n",
    ),
    ("map", defkit.map_param("labels"), "labels: {[string]: string}\n"),
    ("map of int", defkit.map_param("limits", of="int"), "limits: {[string]: int}\n"),
    (
        "map default",
        defkit.map_param("env").default({"A": "1"}),
        'env: *{"A": "1"} | {[string]: string}\n',
    ),
    ("enum", defkit.enum_param("mode", ["fast", "safe"]), 'mode: "fast" | "safe"\n'),
    (
        "enum default",
        defkit.enum_param("mode", ["fast", "safe"]).default("safe"),
        'mode: "fast" | *"safe"\n',
    ),
    ("optional", defkit.string_param("region").optional(), "region?: string\n"),
    (
        "optional with default",
        defkit.int_param("replicas").default(1).optional(),
        "replicas?: *1 | int\n",
    ),
    (
        "description",
        defkit.string_param("image").description("Container image to run"),
        "// +usage=Container image to run\nimage: string\n",
    ),
    (
        "description, default, optional",
        defkit.int_param("replicas").default(3).optional().description("Number of replicas"),
        "// +usage=Number of replicas\nreplicas?: *3 | int\n",
    ),
    ("name that is not an identifier", defkit.string_param("my-param"), '"my-param": string\n'),
]


@pytest.mark.parametrize(("param", "expected"), [p[1:] for p in PARAMS], ids=[p[0] for p in PARAMS])
def test_one_parameter_renders_as_cue(param: Param, expected: str) -> None:
    assert _rendered(param) == expected


def test_parameter_values_in_a_template_use_a_selector_or_an_index() -> None:
    assert defkit.string_param("image").reference().text == "parameter.image"
    assert defkit.string_param("my-param").reference().text == 'parameter["my-param"]'
    assert defkit.string_param("image").is_set().text == 'parameter["image"] != _|_'


def test_an_enum_needs_a_value() -> None:
    with pytest.raises(ValueError, match="enum parameter 'mode' needs at least one value"):
        defkit.enum_param("mode", [])


def test_consecutive_single_line_parameters_are_aligned_and_a_comment_ends_the_run() -> None:
    rendered = _rendered(
        defkit.string_param("name"),
        defkit.int_param("port").default(80),
        defkit.bool_param("debug").optional(),
        defkit.float_param("ratio").description("Ratio of traffic"),
        defkit.string_param("my-param"),
    )
    assert rendered == (
        "name:   string\n"
        "port:   *80 | int\n"
        "debug?: bool\n"
        "// +usage=Ratio of traffic\n"
        "ratio:      number\n"
        '"my-param": string\n'
    )


def test_list_and_map_types_end_an_alignment_run_as_in_cue_fmt() -> None:
    # cue fmt never aligns a field whose value is a list or struct literal
    # ([...string], {[string]: string}), and such a field ends the run; a default
    # (*[80, 443] | [...int]) is a binary expression and is aligned.
    rendered = _rendered(
        defkit.list_param("allowed"),
        defkit.string_param("s"),
        defkit.map_param("labels"),
        defkit.string_param("t"),
        defkit.list_param("ports", of="int").default([80, 443]),
        defkit.string_param("u"),
    )
    assert rendered == (
        "allowed: [...string]\n"
        "s: string\n"
        "labels: {[string]: string}\n"
        "t:     string\n"
        "ports: *[80, 443] | [...int]\n"
        "u:     string\n"
    )


# --- paths and set_if -----------------------------------------------------------------

PATHS: list[tuple[str, list[Any]]] = [
    ("metadata.name", [("metadata", False), ("name", False)]),
    (
        "spec.selector.matchLabels[app.oam.dev/component]",
        [
            ("spec", False),
            ("selector", False),
            ("matchLabels", False),
            ("app.oam.dev/component", True),
        ],
    ),
    (
        "spec.template.spec.containers[0].image",
        [
            ("spec", False),
            ("template", False),
            ("spec", False),
            ("containers", False),
            0,
            ("image", False),
        ],
    ),
    ("a.b[c/d][0].e", [("a", False), ("b", False), ("c/d", True), 0, ("e", False)]),
    ("args[12]", [("args", False), 12]),
    ("data[my.key]", [("data", False), ("my.key", True)]),
]


@pytest.mark.parametrize(("path", "steps"), PATHS, ids=[p[0] for p in PATHS])
def test_paths_split_into_fields_bracketed_keys_and_indexes(path: str, steps: list[Any]) -> None:
    parsed = [s if isinstance(s, int) else (s.name, s.bracketed) for s in parse_path(path)]
    assert parsed == steps


@pytest.mark.parametrize("path", ["", ".a", "a..b", "a[0", "a]", "a.b."])
def test_malformed_paths_are_errors(path: str) -> None:
    with pytest.raises(PathError):
        parse_path(path)


def test_bracketed_keys_are_always_quoted_labels() -> None:
    res = (
        defkit.resource("v1", "ConfigMap")
        .set("metadata.labels[app.oam.dev/component]", defkit.vela_context().name())
        .set("metadata.labels[region]", "eu")
        .set("data[key]", "value")
    )
    assert _output(res) == tabs(
        """
        template: {
            output: {
                apiVersion: "v1"
                kind:       "ConfigMap"
                metadata: {
                    labels: {
                        "app.oam.dev/component": context.name
                        "region":                "eu"
                    }
                }
                data: {
                    "key": "value"
                }
            }
            parameter: {}
        }
        """
    )


def test_index_zero_of_a_list_of_one_struct_renders_as_brackets_around_the_struct() -> None:
    res = (
        defkit.resource("apps/v1", "Deployment")
        .set("spec.containers[0].name", defkit.vela_context().name())
        .set("spec.containers[0].image", "nginx")
    )
    assert _output(res) == tabs(
        """
        template: {
            output: {
                apiVersion: "apps/v1"
                kind:       "Deployment"
                spec: {
                    containers: [{
                        name:  context.name
                        image: "nginx"
                    }]
                }
            }
            parameter: {}
        }
        """
    )


def test_several_list_elements_render_one_per_line() -> None:
    res = (
        defkit.resource("v1", "Service")
        .set("spec.ports[0].port", 80)
        .set("spec.ports[1].port", 443)
        .set("spec.ports[1].name", "https")
        .set("spec.args[0]", "a")
        .set("spec.args[1]", "b")
    )
    assert _output(res) == tabs(
        """
        template: {
            output: {
                apiVersion: "v1"
                kind:       "Service"
                spec: {
                    ports: [
                        {
                            port: 80
                        },
                        {
                            port: 443
                            name: "https"
                        },
                    ]
                    args: [
                        "a",
                        "b",
                    ]
                }
            }
            parameter: {}
        }
        """
    )


def test_values_of_every_kind_and_setting_a_path_again_replaces_its_value() -> None:
    res = (
        defkit.resource("v1", "ConfigMap")
        .set("spec.replicas", 1)
        .set("spec.ratio", 0.25)
        .set("spec.on", True)
        .set("spec.none", None)
        .set("spec.text", 'é "q"')
        .set("spec.selector", {"app": "web", "tier": "front"})
        .set("spec.replicas", 2)
    )
    assert _output(res) == tabs(
        """
        template: {
            output: {
                apiVersion: "v1"
                kind:       "ConfigMap"
                spec: {
                    replicas: 2
                    ratio:    0.25
                    on:       true
                    none:     null
                    text:     "é \\"q\\""
                    selector: {
                        app:  "web"
                        tier: "front"
                    }
                }
            }
            parameter: {}
        }
        """
    )


def test_a_field_set_to_a_value_cannot_also_hold_fields() -> None:
    res = defkit.resource("v1", "ConfigMap").set("spec.x", 1).set("spec.x.y", 2)
    with pytest.raises(PathError, match="'x' is set to a value and cannot also hold fields"):
        res.to_cue()


def test_an_index_on_a_field_that_is_not_a_list_is_an_error() -> None:
    res = defkit.resource("v1", "ConfigMap").set("spec.x.y", 1).set("spec.x[0]", 2)
    with pytest.raises(PathError, match="'x' is not a list"):
        res.to_cue()


def test_set_if_wraps_the_field_in_an_if_block_on_the_parameter_being_set() -> None:
    debug = defkit.bool_param("debug").optional()
    dashed = defkit.string_param("log-level").optional()
    res = (
        defkit.resource("apps/v1", "Deployment")
        .set("spec.replicas", 1)
        .set_if(debug.is_set(), "spec.debug", debug)
        .set_if(dashed.is_set(), "spec.template.metadata.annotations[log-level]", dashed)
        .set("spec.paused", False)
    )
    assert _output(res) == tabs(
        """
        template: {
            output: {
                apiVersion: "apps/v1"
                kind:       "Deployment"
                spec: {
                    replicas: 1
                    if parameter["debug"] != _|_ {
                        debug: parameter.debug
                    }
                    template: {
                        metadata: {
                            annotations: {
                                if parameter["log-level"] != _|_ {
                                    "log-level": parameter["log-level"]
                                }
                            }
                        }
                    }
                    paused: false
                }
            }
            parameter: {}
        }
        """
    )


# --- traits, policies, workflow steps, raw CUE ----------------------------------------


def test_a_trait_with_named_outputs() -> None:
    assert _example("gpu-resources").to_cue() == tabs(
        """
        "gpu-resources": {
            type: "trait"
            annotations: {}
            labels: {}
            description: "Requests GPUs for the main container"
            attributes: {
                appliesToWorkloads: [
                    "deployments.apps",
                ]
            }
        }
        template: {
            outputs: {
                "gpu-limits": {
                    apiVersion: "apps/v1"
                    kind:       "Deployment"
                    spec: {
                        template: {
                            spec: {
                                containers: [{
                                    resources: {
                                        limits: {
                                            "nvidia.com/gpu": parameter.count
                                        }
                                    }
                                }]
                            }
                        }
                    }
                }
            }
            parameter: {
                // +usage=GPUs per container
                count: *1 | int
            }
        }
        """
    )


def test_output_and_outputs_together() -> None:
    def template(tpl: Template) -> None:
        tpl.output(defkit.resource("v1", "Service").set("metadata.name", "svc"))
        tpl.outputs("cfg", defkit.resource("v1", "ConfigMap").set("data[k]", "v"))

    text = defkit.component("both").template(template).to_cue()
    assert text[text.index("template: {") :] == tabs(
        """
        template: {
            output: {
                apiVersion: "v1"
                kind:       "Service"
                metadata: {
                    name: "svc"
                }
            }
            outputs: {
                cfg: {
                    apiVersion: "v1"
                    kind:       "ConfigMap"
                    data: {
                        "k": "v"
                    }
                }
            }
            parameter: {}
        }
        """
    )


def test_a_policy_with_only_parameters() -> None:
    assert _example("eu-data-residency").to_cue() == tabs(
        """
        "eu-data-residency": {
            type: "policy"
            annotations: {}
            labels: {}
            description: "Keeps application data in European regions"
        }
        template: {
            parameter: {
                // +usage=Regions data may be stored in
                allowedRegions: [...string]
            }
        }
        """
    )


def test_a_workflow_step_without_template_or_parameters() -> None:
    step = defkit.workflow_step("notify").description("Sends a message")
    assert step.to_cue() == tabs(
        """
        "notify": {
            type: "workflow-step"
            annotations: {}
            labels: {}
            description: "Sends a message"
        }
        template: {
            parameter: {}
        }
        """
    )
    assert step.to_manifest("vela-system")["kind"] == "WorkflowStepDefinition"


RAW = tabs(
    """
    "legacy": {
        type: "trait"
        annotations: {}
        labels: {}
        description: "Hand-written"
    }
    template: {
        patch: {
            metadata: {
                labels: {
                    legacy: "true"
                }
            }
        }
        parameter: {}
    }
    """
)


def test_raw_cue_is_used_as_is_whatever_the_placement_parameters_or_template() -> None:
    raw = (
        defkit.trait("legacy")
        .run_on(Label("cloud").eq("aws"))
        .params(defkit.string_param("ignored"))
        .template(lambda tpl: tpl.output(defkit.resource("v1", "ConfigMap")))
        .raw_cue(RAW)
    )
    assert raw.to_cue() == RAW
    assert defkit.trait("legacy").raw_cue(RAW.rstrip("\n")).to_cue() == RAW


def test_raw_cue_manifest_stores_only_the_template_body() -> None:
    # A definition object's spec.schematic.cue.template holds what is inside
    # template: {...} (as for Python definitions), never the "<name>": {...} header.
    seed = SEED_CUE.read_text(encoding="utf-8")
    raw = defkit.component("placement-demo").description(SEED_DESCRIPTION).raw_cue(seed)
    template = raw.to_manifest("vela-system")["spec"]["schematic"]["cue"]["template"]
    assert template == template_body(seed)
    assert (
        template
        == _placement_demo().to_manifest("vela-system")["spec"]["schematic"]["cue"]["template"]
    )


# --- manifests ------------------------------------------------------------------------


def test_to_manifest_gives_a_component_definition_with_workload_and_cue_template() -> None:
    manifest = _example("placement-demo").to_manifest("platform-system")
    assert manifest == {
        "apiVersion": "core.oam.dev/v1beta1",
        "kind": "ComponentDefinition",
        "metadata": {
            "name": "placement-demo",
            "namespace": "platform-system",
            "annotations": {"definition.oam.dev/description": SEED_DESCRIPTION},
        },
        "spec": {
            "workload": {
                "definition": {"apiVersion": "apps/v1", "kind": "Deployment"},
                "type": "deployments.apps",
            },
            "schematic": {"cue": {"template": template_body(SEED_CUE.read_text("utf-8"))}},
        },
    }


def test_template_body_of_the_seed() -> None:
    body = template_body(SEED_CUE.read_text(encoding="utf-8"))
    assert body.startswith('output: {\n\tapiVersion: "apps/v1"\n\tkind:       "Deployment"\n')
    assert body.endswith("\tregion?: string\n}\n")
    assert _example("placement-demo").template_cue() == body


def test_trait_and_policy_manifests() -> None:
    trait = _example("gpu-resources").to_manifest("vela-system")
    assert trait["apiVersion"] == "core.oam.dev/v1beta1"
    assert trait["kind"] == "TraitDefinition"
    assert trait["metadata"] == {
        "name": "gpu-resources",
        "namespace": "vela-system",
        "annotations": {"definition.oam.dev/description": "Requests GPUs for the main container"},
    }
    assert trait["spec"]["appliesToWorkloads"] == ["deployments.apps"]
    assert trait["spec"]["schematic"]["cue"]["template"].startswith(
        'outputs: {\n\t"gpu-limits": {\n'
    )
    policy = defkit.policy("bare").to_manifest("ns")
    assert policy == {
        "apiVersion": "core.oam.dev/v1beta1",
        "kind": "PolicyDefinition",
        "metadata": {"name": "bare", "namespace": "ns"},
        "spec": {"schematic": {"cue": {"template": "parameter: {}\n"}}},
    }


def test_an_enum_default_marks_its_member() -> None:
    mode = defkit.enum_param("mode", ["basic", "full"]).default("basic")
    other = defkit.enum_param("other", ["a", "b"]).default("c")
    text = defkit.component("x").params(mode, other).to_cue()
    assert 'mode:  *"basic" | "full"' in text
    assert 'other: *"c" | "a" | "b"' in text


def test_multi_line_strings_are_written_as_cue_multi_line_strings() -> None:
    script = '#!/bin/sh\necho "hi" \\ x\n\n  indented """ quotes\n'

    def template(tpl: defkit.Template) -> None:
        tpl.output(defkit.resource("v1", "ConfigMap").set("data.script", script))

    text = defkit.component("x").template(template).to_cue()
    # Content lines carry the closing delimiter's indentation; backslashes and the
    # delimiter are escaped; the empty last line is the string's final line break.
    assert text.split("\t\tdata: {\n", 1)[1].startswith(
        '\t\t\tscript: """\n'
        "\t\t\t\t#!/bin/sh\n"
        '\t\t\t\techo "hi" \\\\ x\n'
        "\n"
        '\t\t\t\t  indented \\""" quotes\n'
        "\n"
        '\t\t\t\t"""\n'
    )
