"""Validates OpenAPI documents with openapi-spec-validator.

    validate.py FILE...

Each FILE is JSON or YAML. Prints one JSON object: each file's name and "ok" or what is wrong
(the validator's first errors). Exits 0 either way; the test reads the verdicts.
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


print(json.dumps({path: verdict(path) for path in sys.argv[1:]}))
