#!/usr/bin/env bash
# Standbys (issue 42): CPU per GET by key when one server reads the primary and when it reads a standby,
# on a primary and a `pg_basebackup -R` standby on loopback, each loaded with wrk for DURATION seconds.
# Prints the server's and each PostgreSQL node's CPU per request (from /proc, every process of the
# node counted) and the throughput; then the switchover: one writer through a server given both
# hosts, the primary's processes killed (SIGKILL), the standby promoted a second later, and the time
# until the first write after the kill is acknowledged. Everything it starts is stopped at the end,
# also on failure.
#
#   benchmarks/lib/standbys.sh STRATA_BINARY [DURATION] [CONNECTIONS]
set -euo pipefail
STRATA=$1 DURATION=${2:-10} CONNECTIONS=${3:-16}
BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
WORK=$(mktemp -d /tmp/strata-standby-bench.XXXXXX)
AS=(); [ "$(id -u)" = 0 ] && AS=(runuser -u postgres --) && chown postgres "$WORK"
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for node in primary standby; do [ -f "$WORK/$node/postmaster.pid" ] && "${AS[@]}" "$BIN/pg_ctl" -D "$WORK/$node" -m immediate stop >/dev/null 2>&1 || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
P=$(free_port) S=$(free_port)
OPTS="-c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
"${AS[@]}" "$BIN/initdb" -D "$WORK/primary" -A trust -U postgres -E UTF8 --no-locale >/dev/null
"${AS[@]}" "$BIN/pg_ctl" -D "$WORK/primary" -o "-p $P -k $WORK $OPTS" -l "$WORK/primary.log" -w start >/dev/null
"${AS[@]}" "$BIN/pg_basebackup" -h 127.0.0.1 -p "$P" -U postgres -D "$WORK/standby" -R -X stream -c fast
"${AS[@]}" "$BIN/pg_ctl" -D "$WORK/standby" -o "-p $S -k $WORK $OPTS" -l "$WORK/standby.log" -w start >/dev/null
export STRATA_KEY_SECRET=standby-benchmark-secret-0123456789abcdef
PRIMARY="postgres://postgres@127.0.0.1:$P/postgres" STANDBY="postgres://postgres@127.0.0.1:$S/postgres"

# CPU ticks (user + system) of a process and, for a postmaster, of all its children.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
node_ticks() {
    local pm; pm=$(head -1 "$WORK/$1/postmaster.pid"); local sum; sum=$(ticks "$pm")
    for child in $(ps -o pid= --ppid "$pm"); do sum=$((sum + $(ticks "$child" 2>/dev/null || echo 0))); done
    echo "$sum"
}
HZ=$(getconf CLK_TCK)

measure() { # $1 label, rest: extra serve options
    local label=$1; shift
    local H; H=$(free_port)
    "$STRATA" serve --demo --database "$PRIMARY" --data "$WORK/data-$label" --host 127.0.0.1 --port "$H" --log-level error "$@" \
        >"$WORK/server-$label.log" 2>&1 &
    local server=$!; PIDS+=("$server")
    for _ in $(seq 300); do curl -fs "http://127.0.0.1:$H/health/ready" >/dev/null 2>&1 && break; sleep 0.2; done
    curl -fs "http://127.0.0.1:$H/health/ready" >/dev/null || { echo "the server did not start:"; cat "$WORK/server-$label.log"; exit 1; }
    sleep 2   # the standby replays the demo; the first polls
    wrk -t1 -c "$CONNECTIONS" -d 2s "http://127.0.0.1:$H/cardealer/Car(1)" >/dev/null   # warm-up
    local s0 p0 b0; s0=$(ticks "$server"); p0=$(node_ticks primary); b0=$(node_ticks standby)
    local out; out=$(wrk -t1 -c "$CONNECTIONS" -d "${DURATION}s" "http://127.0.0.1:$H/cardealer/Car(1)")
    local s1 p1 b1; s1=$(ticks "$server"); p1=$(node_ticks primary); b1=$(node_ticks standby)
    local requests; requests=$(echo "$out" | awk '/requests in/ {print $1}')
    python3 - "$label" "$requests" "$DURATION" "$HZ" $((s1 - s0)) $((p1 - p0)) $((b1 - b0)) <<'PY'
import sys
label, requests, duration, hz, server, primary, standby = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), *map(int, sys.argv[5:])
us = lambda t: t / hz / requests * 1e6
print(f"| {label} | {requests / duration:,.0f} req/s | {us(server):.0f} µs | {us(primary):.0f} µs | {us(standby):.0f} µs |")
PY
    kill "$server"; wait "$server" 2>/dev/null || true
}
echo "| reads on | GET by key | server CPU/req | primary CPU/req | standby CPU/req |"
echo "|---|---:|---:|---:|---:|"
measure primary
measure standby --read-replica "$STANDBY"

# --- switchover: kill -9 of the primary, `pg_ctl promote` a second later, the first acknowledged write after
PASSWORD=$(grep -o 'password "[^"]*"' "$WORK/server-primary.log" | cut -d'"' -f2)
H=$(free_port)
"$STRATA" serve --database "postgres://postgres@127.0.0.1:$P,127.0.0.1:$S/postgres?target_session_attrs=read-write" \
    --data "$WORK/data-switchover" --host 127.0.0.1 --port "$H" --log-level error >"$WORK/server-switchover.log" 2>&1 &
SERVER=$!; PIDS+=("$SERVER")
for _ in $(seq 300); do curl -fs "http://127.0.0.1:$H/health/ready" >/dev/null 2>&1 && break; sleep 0.2; done
post() { curl -s -o /dev/null -m 20 -w '%{http_code}' -u "editor:$PASSWORD" -H 'Content-Type: application/json' \
    -d '{"firstName":"switch","lastName":"over"}' "http://127.0.0.1:$H/cardealer/Person"; }
[ "$(post)" = 201 ] || { echo "switchover: the first write was refused"; exit 1; }
PM=$(head -1 "$WORK/primary/postmaster.pid")
kill -STOP "$PM"; for child in $(pgrep -P "$PM"); do kill -9 "$child"; done; kill -9 "$PM"
KILLED=$(date +%s.%N)
sleep 1
"${AS[@]}" "$BIN/pg_ctl" -D "$WORK/standby" -w promote >/dev/null
PROMOTED=$(date +%s.%N)
FAILED=0
until [ "$(post)" = 201 ]; do FAILED=$((FAILED + 1)); sleep 0.05; done
DONE=$(date +%s.%N)
python3 -c "import sys; k, p, d, f = map(float, sys.argv[1:]); print(f'switchover: first acknowledged write {d - k:.2f} s after the kill, {d - p:.2f} s after pg_ctl promote returned ({int(f)} writes refused with 503 meanwhile)')" \
    "$KILLED" "$PROMOTED" "$DONE" "$FAILED"
