"""Validates OpenAPI documents with openapi-spec-validator.

    validate.py FILE...

Each FILE is JSON or YAML. Prints one JSON object: each file's name and "ok" or what is wrong
(the validator's first errors); and for each X.json given with its X.yaml, "X.json = X.yaml" and
"ok" when the two read as the same tree (PyYAML reading Strata's YAML emitter). Exits 0 either
way; the test reads the verdicts.
"""
import json
import sys

import yaml
from openapi_spec_validator import validate
from openapi_spec_validator.validation.exceptions import OpenAPIValidationError


def verdict(path):
    with open(path, encoding="utf-8") as file:
        document = yaml.safe_load(file)  # YAML 1.1 reads JSON too
    try:
        validate(document)
    except OpenAPIValidationError as error:
        return f"{error.message} at {'/'.join(str(part) for part in error.absolute_path)}"
    except Exception as error:  # a document the validator cannot even walk is invalid too
        return f"{type(error).__name__}: {error}"
    return "ok"


def load(path):
    with open(path, encoding="utf-8") as file:
        return yaml.safe_load(file)


verdicts = {path: verdict(path) for path in sys.argv[1:]}
for path in sys.argv[1:]:
    twin = path[: -len(".json")] + ".yaml" if path.endswith(".json") else None
    if twin in sys.argv[1:]:
        verdicts[f"{path} = {twin}"] = "ok" if load(path) == load(twin) else "the YAML reads as another tree"
print(json.dumps(verdicts))
