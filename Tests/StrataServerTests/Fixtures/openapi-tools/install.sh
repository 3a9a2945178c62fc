#!/bin/sh
# Creates (or reuses) a virtualenv holding the pinned OpenAPI tools (requirements.txt).
#   install.sh VENV_DIR
# See ../python-venv.sh: idempotent, built beside VENV_DIR and moved into place when complete.
set -eu
if [ $# -ne 1 ] || [ -z "$1" ]; then
    echo "usage: $0 VENV_DIR" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
exec /bin/sh "$here/../python-venv.sh" "$1" "$here/requirements.txt"
