"""A trait only for clusters that have GPUs, and never for edge clusters."""

from clusterplace import defkit
from clusterplace.defkit import Template
from clusterplace.defkit.placement import Label

gpu_count = defkit.int_param("count").default(1).description("GPUs per container")


def gpu_template(tpl: Template) -> None:
    patch = defkit.resource("apps/v1", "Deployment").set(
        "spec.template.spec.containers[0].resources.limits[nvidia.com/gpu]", gpu_count
    )
    tpl.outputs("gpu-limits", patch)


defkit.register(
    defkit.trait("gpu-resources")
    .description("Requests GPUs for the main container")
    .applies_to("deployments.apps")
    .run_on(Label("accelerator").exists())
    .not_run_on(Label("tier").eq("edge"))
    .params(gpu_count)
    .template(gpu_template)
)
