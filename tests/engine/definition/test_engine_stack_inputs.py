"""without_retired_parameters: what a PATCH update with a new template keeps."""

from __future__ import annotations

from conv_tasks.engine.definition.stack_inputs import update_inputs, without_retired_parameters


def test_kept_parameters_the_new_template_lacks_are_dropped() -> None:
    stored_env = {"parameters": {"old_env": 1, "both_env": 2}, "parameter_defaults": {"d": 3}}
    inputs = update_inputs(stored_env, {"f": "x"}, [{"parameters": {"new_env": 4}}], {}, keep=True)
    kept, values = without_retired_parameters(
        inputs,
        {"old": "a", "both": "b", "typo": "c"},
        declared=frozenset({"both", "both_env"}),
        given_values={"typo": "c"},
        given_environment={"new_env": 4},
    )
    # Declared ones stay; this request's own values stay, to be refused by name if unknown.
    assert values == {"both": "b", "typo": "c"}
    assert dict(kept.environment.parameters) == {"both_env": 2, "new_env": 4}
    assert dict(kept.environment.parameter_defaults) == {"d": 3}
    assert dict(kept.files) == {"f": "x"}
