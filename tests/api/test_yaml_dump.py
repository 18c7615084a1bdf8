"""YAML output: multi-line strings (CUE templates, with tabs) as literal blocks, and
every string read back exactly."""

from __future__ import annotations

import yaml
from hypothesis import given
from hypothesis import strategies as st

from clusterplace.outputs.dumpers import dump_yaml_stream


def test_a_tab_indented_template_is_a_literal_block() -> None:
    template = 'output: {\n\tkind: "Deployment"\n\tspec: {\n\t\treplicas: 1\n\t}\n}\n'
    text = dump_yaml_stream([{"spec": {"template": template}}])
    assert text.startswith("spec:\n  template: |\n    output: {\n    \tkind:")
    assert yaml.safe_load(text) == {"spec": {"template": template}}


_text = st.text(alphabet=st.sampled_from("ab \t\n:#'\"-|>{}é"), max_size=40)


@given(st.dictionaries(st.sampled_from(["a", "b", "c"]), _text, max_size=3))
def test_every_string_reads_back_exactly(obj: dict[str, str]) -> None:
    assert yaml.safe_load(dump_yaml_stream([obj])) == (obj or {})
