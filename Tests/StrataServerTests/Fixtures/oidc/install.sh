#!/bin/sh
# Creates (or reuses) a virtualenv holding the pinned OpenID Connect provider.
#   install.sh VENV_DIR
# Idempotent: a VENV_DIR whose python imports the pinned django and django-oidc-provider is
# left alone. Otherwise a new one is built beside it and moved into place only when complete,
# so a half-made virtualenv is never taken as done. A stale VENV_DIR is replaced only if it is
# a virtualenv (has pyvenv.cfg) or empty; anything else there is an error, never deleted.
set -eu

DJANGO_PIN="django==5.2.19"
PROVIDER_PIN="django-oidc-provider==0.9.0"
# The provider's own dependencies, pinned to the versions these tests were written against.
EXTRA_PINS="PyJWT==2.15.1 cryptography==50.0.2 asgiref==3.13.0 sqlparse==0.6.1 cffi==2.1.1 pycparser==3.12"

if [ $# -ne 1 ] || [ -z "$1" ]; then
    echo "usage: $0 VENV_DIR" >&2
    exit 2
fi
VENV_DIR=$1
PYTHON=${PYTHON:-python3}

# One installer at a time per VENV_DIR (two test processes, or .ci/run beside a test run): a second
# waits for the first and then finds its virtualenv ready, instead of replacing it under a user.
if [ -z "${STRATA_OIDC_INSTALL_LOCKED:-}" ] && command -v flock >/dev/null 2>&1; then
    mkdir -p "$(dirname "$VENV_DIR")"
    STRATA_OIDC_INSTALL_LOCKED=1 exec flock "$VENV_DIR.lock" /bin/sh "$0" "$@"
fi
export PYTHONDONTWRITEBYTECODE=1

ready() {
    [ -x "$1/bin/python" ] && "$1/bin/python" -c "
import importlib.metadata as m, oidc_provider, django
assert 'django==' + m.version('django') == '$DJANGO_PIN'.lower()
assert 'django-oidc-provider==' + m.version('django-oidc-provider') == '$PROVIDER_PIN'
" >/dev/null 2>&1
}

if ready "$VENV_DIR"; then
    exit 0
fi
if [ -e "$VENV_DIR" ] && [ ! -f "$VENV_DIR/pyvenv.cfg" ] && [ -n "$(ls -A "$VENV_DIR" 2>/dev/null)" ]; then
    echo "install.sh: $VENV_DIR exists and is not a virtualenv; refusing to replace it" >&2
    exit 1
fi

if ! command -v "$PYTHON" >/dev/null 2>&1; then
    echo "install.sh: $PYTHON not found; Python 3.8+ with the venv module is needed" >&2
    exit 1
fi

# Build beside the target (same filesystem, so the final mv is a rename).
parent=$(dirname "$VENV_DIR")
mkdir -p "$parent"
tmp=$(mktemp -d "$parent/.strata-oidc-venv.XXXXXX")
log="$tmp.log"
cleanup() { rm -rf "$tmp" "$log"; }
trap cleanup EXIT INT TERM

# A virtualenv records its own path in its scripts, but `bin/python` works wherever it is moved,
# and install.sh/run.sh only ever call `VENV_DIR/bin/python` (never bin/pip or bin/django-admin).
if ! "$PYTHON" -m venv "$tmp" >"$log" 2>&1; then
    cat "$log" >&2
    echo "install.sh: '$PYTHON -m venv' failed (on Debian/Ubuntu: apt-get install python3-venv)" >&2
    exit 1
fi
# shellcheck disable=SC2086
if ! "$tmp/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
        "$DJANGO_PIN" "$PROVIDER_PIN" $EXTRA_PINS >"$log" 2>&1; then
    cat "$log" >&2
    echo "install.sh: pip install of $DJANGO_PIN $PROVIDER_PIN failed (is PyPI reachable?)" >&2
    exit 1
fi
if ! "$tmp/bin/python" -c "import oidc_provider, django" >"$log" 2>&1; then
    cat "$log" >&2
    echo "install.sh: the new virtualenv cannot import oidc_provider and django" >&2
    exit 1
fi

# Another installer may have finished first; keep whichever is complete.
if ready "$VENV_DIR"; then
    exit 0
fi
rm -rf "$VENV_DIR"
mv "$tmp" "$VENV_DIR"
exit 0
