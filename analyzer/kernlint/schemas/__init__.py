"""JSON Schemas for kernlint's JSON outputs, shipped inside the package."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

SCHEMAS = ("json", "advice")


@cache
def load(name: str) -> dict:
    text = resources.files(__name__).joinpath(f"{name}.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


def validate(name: str, instance: object) -> None:
    """Raise jsonschema.ValidationError when `instance` breaks schema `name`."""
    import jsonschema

    jsonschema.validate(instance, load(name), cls=jsonschema.Draft202012Validator)
