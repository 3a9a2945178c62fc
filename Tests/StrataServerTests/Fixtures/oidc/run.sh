#!/bin/sh
# Provisions and starts the test OpenID Connect provider in the foreground.
#   run.sh VENV_DIR DATA_DIR PORT CONFIG_JSON
# The final process (same pid as this script, thanks to exec) is Django's runserver on
# 127.0.0.1:PORT; kill that pid to stop it. The issuer is http://127.0.0.1:PORT/openid
# (override the host part with OIDC_SITE_URL). Everything the provider prints goes to
# DATA_DIR/server.log, so nobody has to drain a pipe; only a failure before the server
# starts is reported on stderr (with the log's tail), with a non-zero exit.
set -eu

if [ $# -ne 4 ]; then
    echo "usage: $0 VENV_DIR DATA_DIR PORT CONFIG_JSON" >&2
    exit 2
fi
VENV_DIR=$1
DATA_DIR=$2
PORT=$3
CONFIG_JSON=$4
HERE=$(cd "$(dirname "$0")" && pwd)
PY="$VENV_DIR/bin/python"

if [ ! -x "$PY" ]; then
    echo "run.sh: no virtualenv at $VENV_DIR (run install.sh $VENV_DIR first)" >&2
    exit 1
fi
if [ ! -f "$CONFIG_JSON" ]; then
    echo "run.sh: config $CONFIG_JSON not found" >&2
    exit 1
fi
mkdir -p "$DATA_DIR"
DATA_DIR=$(cd "$DATA_DIR" && pwd)
LOG="$DATA_DIR/server.log"

export OIDC_DATA_DIR="$DATA_DIR"
export OIDC_SITE_URL="${OIDC_SITE_URL:-http://127.0.0.1:$PORT}"
export DJANGO_SETTINGS_MODULE=strata_oidc.settings
export PYTHONDONTWRITEBYTECODE=1
export PYTHONUNBUFFERED=1

cd "$HERE"
if ! "$PY" provision.py "$CONFIG_JSON" >>"$LOG" 2>&1; then
    tail -n 30 "$LOG" >&2
    echo "run.sh: provisioning failed (full log: $LOG)" >&2
    exit 1
fi
exec "$PY" manage.py runserver --noreload --skip-checks "127.0.0.1:$PORT" >>"$LOG" 2>&1 </dev/null
