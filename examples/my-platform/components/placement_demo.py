"""The placement-demo component: clusters with a region and a known provider, outside
development; never a vcluster."""

from clusterplace import defkit
from clusterplace.defkit import Template
from clusterplace.defkit.placement import All, Any, Label

image = defkit.string_param("image").description("Container image to run")
replicas = defkit.int_param("replicas").default(1).description("Number of replicas")
region = defkit.string_param("region").optional().description("Cloud region label (informational)")


def placement_demo_template(tpl: Template) -> None:
    vela = defkit.vela_context()
    deployment = (
        defkit.resource("apps/v1", "Deployment")
        .set("metadata.name", vela.name())
        .set("spec.replicas", replicas)
        .set("spec.selector.matchLabels[app.oam.dev/component]", vela.name())
        .set("spec.template.metadata.labels[app.oam.dev/component]", vela.name())
        .set_if(region.is_set(), "spec.template.metadata.labels[region]", region)
        .set("spec.template.spec.containers[0].name", vela.name())
        .set("spec.template.spec.containers[0].image", image)
    )
    tpl.output(deployment)


defkit.register(
    defkit.component("placement-demo")
    .description("Demonstrates cluster placement: RunOn (provider+env) and NotRunOn (vcluster)")
    .workload("apps/v1", "Deployment")
    .run_on(
        Label("region").exists(),
        All(
            Any(
                Label("provider").in_("aws", "gcp", "azure"),
                Label("provider").eq("on-prem"),
            ),
            Label("environment").ne("development"),
        ),
    )
    .not_run_on(Label("cluster-type").eq("vcluster"))
    .params(image, replicas, region)
    .template(placement_demo_template)
)
