"""A policy only installed on European clusters."""

from clusterplace import defkit
from clusterplace.defkit.placement import Label

regions = defkit.list_param("allowedRegions").description("Regions data may be stored in")

defkit.register(
    defkit.policy("eu-data-residency")
    .description("Keeps application data in European regions")
    .run_on(Label("location").eq("europe"))
    .params(regions)
)
