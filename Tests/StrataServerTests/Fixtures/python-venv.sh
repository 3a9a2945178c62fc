#!/bin/sh
# Creates (or reuses) a virtualenv holding exactly the pinned packages of a requirements file.
#   python-venv.sh VENV_DIR REQUIREMENTS_FILE
# Idempotent: a VENV_DIR whose python has every `name==version` of the file is left alone.
# Otherwise a new one is built beside it and moved into place only when complete, so a half-made
# virtualenv is never taken as done. A stale VENV_DIR is replaced only if it is a virtualenv (has
# pyvenv.cfg) or empty; anything else there is an error, never deleted.
# The test fixtures' install.sh scripts call this with their own requirements.
set -eu

if [ $# -ne 2 ] || [ -z "$1" ] || [ ! -f "$2" ]; then
    echo "usage: $0 VENV_DIR REQUIREMENTS_FILE" >&2
    exit 2
fi
VENV_DIR=$1
REQUIREMENTS=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
PYTHON=${PYTHON:-python3}

# One installer at a time per VENV_DIR (two test processes, or .ci/run beside a test run): a second
# waits for the first and then finds its virtualenv ready, instead of replacing it under a user.
if [ -z "${STRATA_VENV_INSTALL_LOCKED:-}" ] && command -v flock >/dev/null 2>&1; then
    mkdir -p "$(dirname "$VENV_DIR")"
    STRATA_VENV_INSTALL_LOCKED=1 exec flock "$VENV_DIR.lock" /bin/sh "$0" "$@"
fi
export PYTHONDONTWRITEBYTECODE=1

# Every pin of the file is installed at its version (names compared as pip normalizes them).
ready() {
    [ -x "$1/bin/python" ] && "$1/bin/python" - "$REQUIREMENTS" >/dev/null 2>&1 <<'PY'
import importlib.metadata as m, re, sys
for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if not line:
        continue
    name, version = re.split(r"==", line)
    name = re.sub(r"\[.*\]", "", name)
    assert m.version(name) == version, line
PY
}

if ready "$VENV_DIR"; then
    exit 0
fi
if [ -e "$VENV_DIR" ] && [ ! -f "$VENV_DIR/pyvenv.cfg" ] && [ -n "$(ls -A "$VENV_DIR" 2>/dev/null)" ]; then
    echo "python-venv.sh: $VENV_DIR exists and is not a virtualenv; refusing to replace it" >&2
    exit 1
fi
if ! command -v "$PYTHON" >/dev/null 2>&1; then
    echo "python-venv.sh: $PYTHON not found; Python 3.10+ with the venv module is needed" >&2
    exit 1
fi

# Build beside the target (same filesystem, so the final mv is a rename).
parent=$(dirname "$VENV_DIR")
mkdir -p "$parent"
tmp=$(mktemp -d "$parent/.strata-venv.XXXXXX")
log="$tmp.log"
cleanup() { rm -rf "$tmp" "$log"; }
trap cleanup EXIT INT TERM

# A virtualenv records its own path in its scripts, but `bin/python` works wherever it is moved,
# and the fixtures only ever call `VENV_DIR/bin/python`.
if ! "$PYTHON" -m venv "$tmp" >"$log" 2>&1; then
    cat "$log" >&2
    echo "python-venv.sh: '$PYTHON -m venv' failed (on Debian/Ubuntu: apt-get install python3-venv)" >&2
    exit 1
fi
if ! "$tmp/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$REQUIREMENTS" >"$log" 2>&1; then
    cat "$log" >&2
    echo "python-venv.sh: pip install -r $REQUIREMENTS failed (is PyPI reachable?)" >&2
    exit 1
fi
if ! ready "$tmp"; then
    echo "python-venv.sh: the new virtualenv does not hold the pins of $REQUIREMENTS" >&2
    exit 1
fi

# Another installer may have finished first; keep whichever is complete.
if ready "$VENV_DIR"; then
    exit 0
fi
rm -rf "$VENV_DIR"
mv "$tmp" "$VENV_DIR"
exit 0
