"""Loads docs/schemas and validates racetrack's JSON outputs against them.

The published schemas are open (a field added within a schema_version does
not break a tool that validates with an older copy); the tests validate with
a strict copy, where every object that lists its properties rejects any
other, so an output field the schemas do not document fails them.
"""
import copy
import json
import os
import warnings

try:
    import jsonschema
except ImportError as e:  # a clear failure, not a skip: install-deps.sh installs it
    raise SystemExit("python3-jsonschema is missing: run scripts/install-deps.sh") from e

SCHEMA_NAMES = ("hazard", "check", "sim", "replay", "info", "diff", "check-ranks")


def _strict(node):
    if isinstance(node, dict):
        if "properties" in node and "additionalProperties" not in node:
            node["additionalProperties"] = False
        for value in node.values():
            _strict(value)
    elif isinstance(node, list):
        for value in node:
            _strict(value)
    return node


class Schemas:
    def __init__(self, directory, strict=True):
        self.raw = {}
        for name in SCHEMA_NAMES:
            with open(os.path.join(directory, name + ".schema.json")) as f:
                self.raw[name] = json.load(f)
        self.schemas = {n: _strict(copy.deepcopy(s)) if strict else s for n, s in self.raw.items()}
        self._validators = {}

    def validator(self, name):
        if name not in self._validators:
            schema = self.schemas[name]
            cls = jsonschema.validators.validator_for(schema)
            cls.check_schema(schema)
            self._validators[name] = self._make(cls, schema)
        return self._validators[name]

    def _make(self, cls, schema):
        by_id = {s["$id"]: s for s in self.schemas.values()}
        try:  # jsonschema >= 4.18
            from referencing import Registry, Resource
            registry = Registry().with_resources((i, Resource.from_contents(s)) for i, s in by_id.items())
            return cls(schema, registry=registry)
        except ImportError:  # Debian 12's 4.10
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                resolver = jsonschema.RefResolver.from_schema(schema, store=by_id)
            return cls(schema, resolver=resolver)

    def errors(self, name, document):
        """Every way `document` breaks schema `name`, as readable lines."""
        found = sorted(self.validator(name).iter_errors(document), key=lambda e: list(e.absolute_path))
        return ["/".join(str(p) for p in e.absolute_path) + ": " + e.message for e in found]
