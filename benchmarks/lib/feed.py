"""The change feed (issue 25): what tracking costs writes, a delta against the full stream, 1,000 live subscribers.

    feed.py measure    every part below on each live Strata target; writes <run>/feed.json
    feed.py markdown   prints the section of latest.md (used by bench.py report)
    feed.py generate   (internal) the paced write load of the subscriber measurement, a process of its own

Environment (besides common.py's): BENCH_FEED_SECONDS, BENCH_FEED_RATE, BENCH_FEED_SUBSCRIBERS,
BENCH_FEED_UPDATE_SHARE (0.02), BENCH_FEED_DELTA_ROWS, BENCH_FEED_PARTS (delta,writes,subscribers) and
BENCH_FEED_TARGETS (strata_sqlite,strata_pg) to measure a part or a database alone.

1. Write cost of tracking. `POST Person` under wrk and a `$batch` of 1,000 inserts (bench.py's scenarios
   post_single and batch_1000), with tracking of Person off and on, taking turns (off, on, off, on, …);
   `strata service track cardealer --tables Person [--off]` switches it, then POST /admin/services/reload
   (as the admin account benchmarks/run creates) makes the server load the model. The POST rate under
   wrk's saturating load is the ingest ceiling: committed changes per second.
2. Delta of 10,000 rows. `$tables?names=Person&track=1` (the full stream, timed: rows/s), 10,000 rows
   updated (`$batch` change sets of 1,000 MERGEs), then `$tables?names=Person&since=TOKEN` following
   `next` until `token`: time and rows/s.
3. Subscribers. 1,000 SSE connections to `$feed?sets=Person&$filter=personID mod 100 eq K` (K = 0…99,
   ten each; raw sockets in asyncio) while a paced load (`feed.py generate`, a process of its own) commits
   1,000 changes/s: inserts, and updates of random existing rows; every write sets firstName to `L<seq>`,
   and the generator records when each write was sent and when its answer came (CLOCK_MONOTONIC, shared
   by the processes). Latency is from the answer (the commit is acknowledged) to the event carrying the
   row reaching a subscriber. Server CPU per delivered event from /proc/PID/stat over the load; memory per
   subscriber is the server's RSS growth from before connecting to all connected, ÷ 1,000.
"""
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import time
import urllib.parse

import common

LIB = os.path.dirname(os.path.abspath(__file__))
ENV = os.environ
SUBSCRIBERS = int(ENV.get("BENCH_FEED_SUBSCRIBERS", "1000"))
FILTERS = 100
RATE = int(ENV.get("BENCH_FEED_RATE", "1000"))
FEED_SECONDS = int(ENV.get("BENCH_FEED_SECONDS", "20"))
# Share of the paced writes that are updates of existing rows (the rest are inserts). An update reaches
# every subscriber: the row as a row where it matches, its key as a tombstone where it does not (the log
# holds keys only, so the server cannot know the row never matched); an insert reaches the matching ones.
UPDATE_SHARE = float(ENV.get("BENCH_FEED_UPDATE_SHARE", "0.02"))
DELTA_ROWS = int(ENV.get("BENCH_FEED_DELTA_ROWS", "10000"))
GENERATOR_CONNECTIONS = 32


def path():
    return os.path.join(common.RUN_DIR, "feed.json")


def log(text):
    print("  feed " + text, flush=True)


# ----------------------------------------------------------------------------------------------
# 1. write cost
# ----------------------------------------------------------------------------------------------

POST = next(s for s in common.SCENARIOS if s["id"] == "post_single")
BATCH = next(s for s in common.SCENARIOS if s["id"] == "batch_1000")


def write_cost(target):
    url = target.base + POST["strata"]
    runs = {"off": [], "on": []}
    batches = {"off": [], "on": []}
    for round_ in range(common.REPEAT):
        for state in ("off", "on"):
            target.track(state == "on")
            if round_ == 0 and common.WARMUP > 0:
                common.wrk(url, common.WARMUP, target.auth(), "POST", POST["body"])
            before = common.cpu_seconds(target.pid)
            run = common.wrk(url, common.DURATION, target.auth(), "POST", POST["body"])
            if run["requests"] and before is not None:
                run["cpu_us_per_request"] = (common.cpu_seconds(target.pid) - before) * 1e6 / run["requests"]
            runs[state].append(run)
            batch = measure_batch(target)
            batches[state].append(batch)
            log(f"{target.label:<18} tracking {state:<3} POST {run['rps'] or 0:,.0f} req/s (errors {run['errors']}), "
                f"$batch {batch['batch_ms']:.0f} ms")
    result = {}
    for state in ("off", "on"):
        summary = common.summarize_wrk(runs[state])
        times = [t for b in batches[state] for t in b["runs"]]
        summary["batch_ms"] = statistics.median(times)
        summary["batch_status"] = sorted({s for b in batches[state] for s in b["status"]})
        summary["batch_created"] = min(b["created_per_batch"] for b in batches[state])
        summary["batch_runs"] = times
        result[state] = summary
    result["post_ratio"] = common.ratio(result["on"]["rps"], result["off"]["rps"])
    result["batch_ratio"] = common.ratio(result["on"]["batch_ms"], result["off"]["batch_ms"])
    return result


def measure_batch(target):
    """Two timed batches of 1,000 inserts (common.batch_body, as bench.py's batch_1000), after one warm-up batch."""
    times, statuses, created = [], set(), None
    for run in range(3):
        body, content_type = common.batch_body(1000, run)
        headers = target.auth()
        headers["Content-Type"] = content_type
        started = time.perf_counter()
        status, _, data = common.request(target.base, BATCH["strata"], "POST", body, headers)
        elapsed = time.perf_counter() - started
        statuses.add(status)
        created = data.decode(errors="replace").count("201 Created")
        if run > 0:
            times.append(elapsed * 1000)
    return {"batch_ms": statistics.median(times), "runs": times, "status": sorted(statuses), "created_per_batch": created}


# ----------------------------------------------------------------------------------------------
# 2. delta of 10,000 rows against the full stream
# ----------------------------------------------------------------------------------------------

def update_batch_body(ids, tag):
    boundary, changeset = f"batch_upd_{tag}", f"changeset_upd_{tag}"
    parts = [f"--{boundary}\r\nContent-Type: multipart/mixed; boundary={changeset}\r\n\r\n"]
    for n, key in enumerate(ids):
        body = json.dumps({"firstName": f"D{tag}"})
        parts.append(
            f"--{changeset}\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n"
            f"Content-ID: {n + 1}\r\n\r\nMERGE Person({key}) HTTP/1.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body.encode())}\r\n\r\n{body}\r\n")
    parts.append(f"--{changeset}--\r\n--{boundary}--\r\n")
    return "".join(parts), f"multipart/mixed; boundary={boundary}"


def tables_read(base, path_):
    """GET of a $tables answer on one connection, following `next`: rows, deleted keys, seconds, pages."""
    started = time.perf_counter()
    rows = deleted = pages = size = 0
    token = None
    page_ms = []
    while path_:
        page_started = time.perf_counter()
        status, _, data = common.request(base, path_)
        page_ms.append(round((time.perf_counter() - page_started) * 1000, 1))
        if status != 200:
            raise RuntimeError(f"GET {path_[:120]} answered {status}: {data[:300]!r}")
        pages += 1
        size += len(data)
        document = json.loads(data)
        for table in document["tables"]:
            rows += len(table.get("rows") or [])
            deleted += len(table.get("deleted") or [])
        token = document.get("token")
        following = document.get("next")
        path_ = None
        if following:
            parsed = urllib.parse.urlsplit(following)
            path_ = parsed.path + ("?" + parsed.query if parsed.query else "")
    seconds = time.perf_counter() - started
    return {"rows": rows, "deleted": deleted, "seconds": seconds, "pages": pages, "page_ms": page_ms, "bytes": size, "token": token,
            "rows_per_s": rows / seconds if seconds else None}


def delta(target):
    full_runs, tracked_runs, delta_runs, update_s = [], [], [], []
    for round_ in range(common.REPEAT):
        full_runs.append(tables_read(target.base, "/cardealer/$tables?names=Person"))
        full = tables_read(target.base, "/cardealer/$tables?names=Person&track=1")
        tracked_runs.append(full)
        # 10,000 distinct existing rows, in change sets of 1,000.
        ids = random.Random(round_).sample(range(1, common.SCALE + 1), DELTA_ROWS)
        started = time.perf_counter()
        for chunk in range(0, len(ids), 1000):
            body, content_type = update_batch_body(ids[chunk:chunk + 1000], f"{round_}_{chunk}")
            headers = target.auth()
            headers["Content-Type"] = content_type
            status, _, data = common.request(target.base, "/cardealer/$batch", "POST", body, headers)
            if status != 202 or data.count(b"204 No Content") != len(ids[chunk:chunk + 1000]):
                raise RuntimeError(f"updating rows: $batch answered {status}, "
                                   f"{data.count(b'204 No Content')} × 204: {data[:300]!r}")
        update_s.append(time.perf_counter() - started)
        since = "/cardealer/$tables?names=Person&since=" + urllib.parse.quote(full["token"], safe="")
        changed = tables_read(target.base, since)
        delta_runs.append(changed)
        log(f"{target.label:<18} full stream {full['rows']:,} rows in {full['seconds']:.2f} s "
            f"({full['rows_per_s']:,.0f} rows/s); delta {changed['rows']:,} rows + {changed['deleted']} deleted "
            f"in {changed['seconds']:.2f} s, {changed['pages']} pages ({changed['rows_per_s']:,.0f} rows/s)")
    full_rate = statistics.median(r["rows_per_s"] for r in full_runs)
    delta_rate = statistics.median(r["rows_per_s"] for r in delta_runs)
    strip = lambda r: {k: v for k, v in r.items() if k != "token"}
    return {"full": [strip(r) for r in full_runs], "tracked_full": [strip(r) for r in tracked_runs],
            "tracked_full_rows_per_s": statistics.median(r["rows_per_s"] for r in tracked_runs),
            "delta": [strip(r) for r in delta_runs],
            "full_rows_per_s": full_rate, "delta_rows_per_s": delta_rate,
            "delta_seconds": statistics.median(r["seconds"] for r in delta_runs),
            "delta_rows": delta_runs[0]["rows"], "update_seconds": statistics.median(update_s),
            "ratio": common.ratio(delta_rate, full_rate)}


# ----------------------------------------------------------------------------------------------
# 3. subscribers
# ----------------------------------------------------------------------------------------------

def feed_path(k):
    return "/cardealer/$feed?sets=Person&$filter=" + common.q(f"personID mod {FILTERS} eq {k}")


class Subscriber(asyncio.Protocol):
    """One SSE connection, read raw: counts events, notes when each stamped row arrives."""

    def __init__(self, hub, k):
        self.hub, self.k = hub, k
        self.buffer = b""
        self.body = b""
        self.chunk_left = 0
        self.headers_done = False
        self.ready = asyncio.get_running_loop().create_future()
        self.status = None
        self.closed = False
        self.rows = 0

    def connection_made(self, transport):
        self.transport = transport
        request = (f"GET {feed_path(self.k)} HTTP/1.1\r\nHost: {self.hub.host}\r\nAccept: text/event-stream\r\n\r\n")
        transport.write(request.encode())

    def data_received(self, data):
        now = time.monotonic()
        self.buffer += data
        if not self.headers_done:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = self.buffer[:end].decode(errors="replace")
            self.status = int(head.split(" ", 2)[1])
            self.chunked = "transfer-encoding: chunked" in head.lower()
            self.buffer = self.buffer[end + 4:]
            self.headers_done = True
            if self.status != 200:
                self.hub.errors.append(f"subscriber {self.k}: status {self.status}")
                if not self.ready.done():
                    self.ready.set_result(False)
                return
        if self.chunked:
            self.dechunk()
        else:
            self.body, self.buffer = self.body + self.buffer, b""
        while True:
            end = self.body.find(b"\n\n")
            if end < 0:
                break
            event, self.body = self.body[:end], self.body[end + 2:]
            self.hub.event(self, event, now)

    def dechunk(self):
        while True:
            if self.chunk_left == 0:
                line_end = self.buffer.find(b"\r\n")
                if line_end < 0:
                    return
                line = self.buffer[:line_end].split(b";")[0].strip()
                if not line:  # the CRLF after a chunk's data
                    self.buffer = self.buffer[line_end + 2:]
                    continue
                self.chunk_left = int(line, 16)
                self.buffer = self.buffer[line_end + 2:]
                if self.chunk_left == 0:
                    return
            if not self.buffer:
                return
            take = self.buffer[:self.chunk_left]
            self.body += take
            self.buffer = self.buffer[len(take):]
            self.chunk_left -= len(take)

    def connection_lost(self, exc):
        self.closed = True
        if not self.hub.stopping:
            self.hub.errors.append(f"subscriber {self.k}: connection closed by the server ({exc})")
        if not self.ready.done():
            self.ready.set_result(False)


class Hub:
    def __init__(self, base):
        self.host, self.port = common.split(base)
        self.subscribers = []
        self.errors = []
        self.stopping = False
        self.events = 0
        self.events_with_rows = 0
        self.tombstone_events = 0
        self.arrivals = []  # (seq, monotonic time)
        self.other = {}
        self.bytes = 0

    def event(self, subscriber, raw, now):
        kind = None
        data = None
        for line in raw.split(b"\n"):
            if line.startswith(b"event:"):
                kind = line[6:].strip()
            elif line.startswith(b"data:"):
                data = line[5:].strip()
        if kind is None:
            return  # a comment (keep-alive) or the retry line
        if kind == b"ready":
            if not subscriber.ready.done():
                subscriber.ready.set_result(True)
            return
        if kind != b"changes":
            self.other[kind.decode()] = self.other.get(kind.decode(), 0) + 1
            self.errors.append(f"subscriber {subscriber.k}: event {kind.decode()}: {(data or b'')[:200]!r}")
            return
        self.events += 1
        self.bytes += len(raw)
        if b'"rows":[]' in data:
            self.tombstone_events += 1
            return
        self.events_with_rows += 1
        for table in json.loads(data)["tables"]:
            names = [f["name"] for f in table["fields"]]
            at = names.index("firstName")
            for row in table["rows"]:
                value = row[at]
                if isinstance(value, str) and value.startswith("L") and value[1:].isdigit():
                    self.arrivals.append((int(value[1:]), now, row[0] % FILTERS == subscriber.k))
                    subscriber.rows += 1
                else:
                    self.other["rows without a stamp"] = self.other.get("rows without a stamp", 0) + 1


async def run_subscribers(target, seconds, rate, update_share):
    loop = asyncio.get_running_loop()
    hub = Hub(target.base)
    rss_before = common.rss_kib(target.pid)
    started = time.monotonic()
    for k in range(SUBSCRIBERS):
        _, protocol = await loop.create_connection(lambda k=k: Subscriber(hub, k % FILTERS), hub.host, hub.port)
        hub.subscribers.append(protocol)
        if k % 50 == 49:
            await asyncio.sleep(0)
    ready = await asyncio.wait_for(asyncio.gather(*(s.ready for s in hub.subscribers)), 120)
    connect_s = time.monotonic() - started
    await asyncio.sleep(1)
    rss_connected = common.rss_kib(target.pid)
    log(f"{target.label:<18} {sum(ready)} of {SUBSCRIBERS} subscribers ready in {connect_s:.1f} s, "
        f"server RSS {rss_before / 1024:.0f} → {rss_connected / 1024:.0f} MB")
    cpu_before = common.cpu_seconds(target.pid)
    database_before = common.cluster_cpu_seconds(common.POSTMASTER) if target.name == "strata_pg" and common.POSTMASTER else None
    own_before = time.process_time()
    out = os.path.join(common.RUN_DIR, f"feed-generator-{target.name}.json")
    generator = await asyncio.create_subprocess_exec(
        sys.executable, os.path.abspath(__file__), "generate", target.base, target.token, str(rate), str(seconds),
        str(update_share), str(common.SCALE), out)
    await generator.wait()
    # Let what is still in flight arrive: the stragglers are the tail the goal is about.
    await asyncio.sleep(3)
    cpu_used = common.cpu_seconds(target.pid) - cpu_before
    database_used = (common.cluster_cpu_seconds(common.POSTMASTER) - database_before) if database_before is not None else None
    own_used = time.process_time() - own_before
    rss_after = common.rss_kib(target.pid)
    hub.stopping = True
    for s in hub.subscribers:
        s.transport.close()
    sent = json.load(open(out))
    return summarize_subscribers(target, hub, sent, ready, connect_s, rss_before, rss_connected, rss_after, cpu_used,
                                 database_used, own_used)


def percentile(values, p):
    if not values:
        return None
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def ranges(indices):
    """[0, 1, 2, 5] → "0-2,5": which subscribers (in connection order)."""
    parts, start, last = [], None, None
    for i in indices + [None]:
        if start is not None and (i is None or i != last + 1):
            parts.append(f"{start}" if start == last else f"{start}-{last}")
            start = None
        if i is not None and start is None:
            start = i
        last = i
    return ",".join(parts)


def summarize_subscribers(target, hub, sent, ready, connect_s, rss_before, rss_connected, rss_after, cpu_used,
                          database_used, own_used):
    writes = {w[0]: w for w in sent["writes"]}  # seq → (seq, kind, key, sent, acknowledged, status)
    latencies, from_send, expected = [], [], 0
    misplaced = 0
    seen = {}
    for seq, at, matches in hub.arrivals:
        if not matches:
            misplaced += 1
        w = writes.get(seq)
        if w is None or w[4] is None:
            continue
        latencies.append((at - w[4]) * 1000)
        from_send.append((at - w[3]) * 1000)
        seen[seq] = seen.get(seq, 0) + 1
    per_filter = SUBSCRIBERS // FILTERS
    ok = [w for w in sent["writes"] if w[5] in (201, 204) and w[2] is not None]
    missing = sum(max(0, per_filter - seen.get(w[0], 0)) for w in ok)
    # Where the missing rows are: writes nobody received, the first of them, and when the last row arrived.
    unseen = sorted(w[0] for w in ok if not seen.get(w[0]))
    first_ack = min((w[4] for w in ok), default=None)
    last_arrival = max((at for _, at, _ in hub.arrivals), default=None)
    losses = {
        "writes_received_by_nobody": len(unseen), "first_unseen_seq": unseen[0] if unseen else None,
        "unseen_sample": unseen[:10],
        "last_row_arrival_s": (last_arrival - first_ack) if last_arrival and first_ack else None,
        "subscribers_with_rows": len({id(x) for x in hub.subscribers if x.rows}),
        "subscribers_closed": sum(1 for x in hub.subscribers if x.closed),
        "subscribers_without_rows": ranges([i for i, x in enumerate(hub.subscribers) if not x.rows]),
    }
    expected = len(ok) * per_filter
    changes = len(ok)
    result = {
        "subscribers": SUBSCRIBERS, "subscribers_ready": sum(ready), "filters": FILTERS, "connect_s": connect_s,
        "target_rate": sent["rate"], "seconds": sent["seconds"], "update_share": sent["update_share"],
        "writes_sent": len(sent["writes"]), "changes_committed": changes,
        "committed_per_s": changes / sent["seconds"],
        "write_errors": sent["errors"], "write_statuses": sent["statuses"],
        "write_p99_ms": percentile([(w[4] - w[3]) * 1000 for w in ok], 99),
        "generator_behind_ms": sent["behind_ms"],
        "events": hub.events, "events_with_rows": hub.events_with_rows, "tombstone_only_events": hub.tombstone_events,
        "event_bytes": hub.bytes,
        "rows_expected": expected, "rows_delivered": len(latencies), "rows_missing": missing,
        "rows_to_wrong_subscriber": misplaced, "losses": losses,
        "latency_p50_ms": percentile(latencies, 50), "latency_p99_ms": percentile(latencies, 99),
        "latency_max_ms": max(latencies) if latencies else None,
        "latency_from_send_p50_ms": percentile(from_send, 50), "latency_from_send_p99_ms": percentile(from_send, 99),
        "server_cpu_s": cpu_used, "database_cpu_s": database_used, "subscriber_process_cpu_s": own_used,
        "server_cpu_us_per_event": cpu_used * 1e6 / hub.events if hub.events else None,
        "server_cpu_us_per_change": cpu_used * 1e6 / changes if changes else None,
        "rss_before_mb": rss_before / 1024, "rss_connected_mb": rss_connected / 1024, "rss_after_mb": rss_after / 1024,
        "rss_per_subscriber_kb": (rss_connected - rss_before) / SUBSCRIBERS,
        "other": hub.other, "errors": hub.errors[:20], "error_count": len(hub.errors),
    }
    log(f"{target.label:<18} {changes:,} changes ({result['committed_per_s']:,.0f}/s), {hub.events:,} events "
        f"({hub.tombstone_events:,} tombstones only), rows delivered {len(latencies):,} of {expected:,}; latency p50 "
        f"{result['latency_p50_ms'] or 0:.1f} ms p99 {result['latency_p99_ms'] or 0:.1f} ms; server CPU "
        f"{cpu_used:.1f} s ({result['server_cpu_us_per_event'] or 0:.0f} µs/event); RSS/subscriber "
        f"{result['rss_per_subscriber_kb']:.0f} KiB; errors {len(hub.errors)}")
    return result


# ----------------------------------------------------------------------------------------------
# the paced write load (a process of its own, so that it does not share the subscribers' interpreter)
# ----------------------------------------------------------------------------------------------

async def generate(base, token, rate, seconds, update_share, scale, out):
    host, port = common.split(base)
    total = int(rate * seconds)
    rng = random.Random(25)
    plan = [("update" if rng.random() < update_share else "insert", rng.randint(1, scale)) for _ in range(total)]
    writes = [None] * total
    statuses = {}
    errors = []
    behind = []
    next_seq = [0]
    start = time.monotonic() + 0.2

    async def connection():
        reader, writer = await asyncio.open_connection(host, port)
        while True:
            seq = next_seq[0]
            if seq >= total:
                break
            next_seq[0] += 1
            due = start + seq / rate
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            else:
                behind.append(-wait * 1000)
            kind, key = plan[seq]
            body = json.dumps({"firstName": f"L{seq}"} if kind == "update" else
                              {"firstName": f"L{seq}", "lastName": "Feed", "ssn": None}).encode()
            target = f"/cardealer/Person({key})" if kind == "update" else "/cardealer/Person"
            method = "MERGE" if kind == "update" else "POST"
            request = (f"{method} {target} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n"
                       f"Content-Type: application/json\r\nAccept: application/json\r\nPrefer: return=minimal\r\n"
                       f"Content-Length: {len(body)}\r\n\r\n").encode() + body
            sent = time.monotonic()
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            acknowledged = time.monotonic()
            lines = head.decode(errors="replace").split("\r\n")
            status = int(lines[0].split(" ", 2)[1])
            length, location = 0, None
            for line in lines[1:]:
                name, _, value = line.partition(":")
                if name.lower() == "content-length":
                    length = int(value.strip())
                elif name.lower() == "location":
                    location = value.strip()
            if length:
                await reader.readexactly(length)
            if kind == "insert" and location:
                inside = location.rsplit("(", 1)[-1].rstrip(")")
                key = int(inside) if inside.isdigit() else None
            elif kind == "insert":
                key = None
            statuses[status] = statuses.get(status, 0) + 1
            if status not in (201, 204) and len(errors) < 10:
                errors.append(f"{method} {target}: {status}")
            writes[seq] = (seq, kind, key, sent, acknowledged, status)
        writer.close()

    await asyncio.gather(*(connection() for _ in range(GENERATOR_CONNECTIONS)))
    elapsed = time.monotonic() - start
    json.dump({"rate": rate, "seconds": elapsed, "update_share": update_share, "statuses": statuses,
               "errors": errors, "behind_ms": {"p50": percentile(behind, 50), "p99": percentile(behind, 99),
                                               "late_writes": len(behind)},
               "writes": [w for w in writes if w]}, open(out, "w"))


# ----------------------------------------------------------------------------------------------
# measure, report
# ----------------------------------------------------------------------------------------------

def measure():
    if ENV.get("BENCH_FEED_SKIPPED"):
        json.dump({"skipped": ENV["BENCH_FEED_SKIPPED"]}, open(path(), "w"))
        return
    results = {"settings": {"subscribers": SUBSCRIBERS, "filters": FILTERS, "rate": RATE, "seconds": FEED_SECONDS,
                            "update_share": UPDATE_SHARE, "delta_rows": DELTA_ROWS,
                            "max_connections": ENV.get("BENCH_MAX_CONNECTIONS"), "open_files": ENV.get("BENCH_OPEN_FILES")}}
    root = os.path.dirname(os.path.dirname(LIB))
    commit = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                           text=True).stdout.strip()
    results["run"] = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "commit": commit + (" (with uncommitted changes)" if dirty else ""),
                      "load_before": open("/proc/loadavg").read().split()[:3]}
    parts = [p for p in ENV.get("BENCH_FEED_PARTS", "delta,writes,subscribers").split(",") if p]
    only = [t for t in ENV.get("BENCH_FEED_TARGETS", "").split(",") if t]  # e.g. strata_pg, to repeat one database
    for name in common.STRATA:
        if not common.live(name) or (only and name not in only):
            continue
        entry = {}
        results[name] = entry
        try:
            target = common.Target(name)
            # The delta first: it reads the whole table, which the write measurement then grows.
            target.track(True)
            if "delta" in parts:
                entry["delta"] = delta(target)
            if "writes" in parts:
                entry["writes"] = write_cost(target)  # ends with tracking on
            if "subscribers" in parts:
                entry["subscribers"] = asyncio.run(run_subscribers(target, FEED_SECONDS, RATE, UPDATE_SHARE))
        except Exception as error:  # report what failed and go on with the next database
            entry["failed"] = f"{type(error).__name__}: {error}"
            log(f"{name}: failed: {entry['failed']}")
        json.dump(results, open(path(), "w"), indent=1)
    results["run"]["load_after"] = open("/proc/loadavg").read().split()[:3]
    json.dump(results, open(path(), "w"), indent=1)


def load():
    return common.load_json(path())


def markdown(results):
    lines, done = common.section_start("Change feed (issue 25)", results)
    if done:
        return lines
    s = results.get("settings", {})
    run = results.get("run", {})
    lines.append(common.measured_when(run) + f"; wrk as above for the POSTs, {s.get('seconds')} s of paced load "
                 f"for the subscribers.")
    lines.append("")
    row = common.target_table(lines, results)

    num = common.fmt_num
    row("POST one entity, tracking off → on (req/s = committed changes/s under wrk)",
        lambda e: f"{num(e['writes']['off']['rps'])} → {num(e['writes']['on']['rps'])} ({common.fmt_ratio(e['writes']['post_ratio'])})")
    row("POST server CPU µs/request, off → on",
        lambda e: f"{num(e['writes']['off']['cpu_us_per_request'])} → {num(e['writes']['on']['cpu_us_per_request'])}")
    row("$batch of 1,000 inserts, ms, off → on",
        lambda e: f"{num(e['writes']['off']['batch_ms'])} → {num(e['writes']['on']['batch_ms'])} ({common.fmt_ratio(e['writes']['batch_ratio'])})")
    row("full stream `$tables?names=Person`, rows/s (with `&track=1`)",
        lambda e: f"{num(e['delta']['full_rows_per_s'])} ({e['delta']['full'][0]['rows']:,} rows) "
                  f"({num(e['delta']['tracked_full_rows_per_s'])})")
    row(f"delta of {s.get('delta_rows', DELTA_ROWS):,} updated rows (`since=`, following `next`), rows/s",
        lambda e: f"{num(e['delta']['delta_rows_per_s'])} ({e['delta']['delta_rows']:,} rows in {e['delta']['delta_seconds'] * 1000:,.0f} ms, "
                  f"{e['delta']['delta'][0]['pages']} pages)")
    row("delta ÷ full stream, rows/s (goal ≥ 1)", lambda e: common.fmt_ratio(e["delta"]["ratio"]))
    row(f"{s.get('subscribers')} SSE subscribers ready (connect time)",
        lambda e: f"{e['subscribers']['subscribers_ready']} ({e['subscribers']['connect_s']:.1f} s)")
    row("changes committed/s under the paced load (goal rate, update share)",
        lambda e: f"{num(e['subscribers']['committed_per_s'])} ({s.get('rate')}/s, {e['subscribers']['update_share']:.0%} updates)")
    row("commit-to-event latency p50 / p99 (goal p99 < 100 ms)",
        lambda e: f"{num(e['subscribers']['latency_p50_ms'])} / {num(e['subscribers']['latency_p99_ms'])} ms")
    row("stamped rows delivered / expected (missing)",
        lambda e: f"{e['subscribers']['rows_delivered']:,} / {e['subscribers']['rows_expected']:,} ({e['subscribers']['rows_missing']:,})")
    row("events delivered (of which tombstones only)",
        lambda e: f"{e['subscribers']['events']:,} ({e['subscribers']['tombstone_only_events']:,})")
    row("server CPU µs per delivered event (per committed change)",
        lambda e: f"{num(e['subscribers']['server_cpu_us_per_event'])} ({num(e['subscribers']['server_cpu_us_per_change'])})")
    row("the measuring processes' own CPU s: subscribers (one asyncio process), load generator lateness p99",
        lambda e: f"{e['subscribers']['subscriber_process_cpu_s']:.1f} s, {num(e['subscribers']['generator_behind_ms']['p99'] or 0)} ms")
    row("server memory per subscriber (RSS growth ÷ subscribers)",
        lambda e: f"{e['subscribers']['rss_per_subscriber_kb']:.0f} KiB")
    row("errors (subscribers, writes)",
        lambda e: f"{e['subscribers']['error_count']}, {sum(v for k, v in e['subscribers']['write_statuses'].items() if k not in ('201', '204'))}")
    common.target_failures(lines, results)
    lines.append("")
    lines.append(f"Subscribers: `$feed?sets=Person&$filter=personID mod {FILTERS} eq K`, K = 0…{FILTERS - 1}, "
                 f"{s.get('subscribers', 0) // FILTERS} each; the paced load writes firstName `L<seq>` with inserts and "
                 f"updates of random rows through {GENERATOR_CONNECTIONS} connections; latency runs from the write's answer "
                 f"to the event's arrival. An update reaches every subscriber (a tombstone where the row does not "
                 f"match), an insert only the matching ones. Servers run with `--max-connections "
                 f"{s.get('max_connections')}` and an open-file limit of {s.get('open_files')}.")
    return lines


if __name__ == "__main__":
    common.module_main(__doc__, measure, markdown, load,
                       generate=lambda args: asyncio.run(generate(args[0], args[1], int(args[2]), float(args[3]),
                                                                  float(args[4]), int(args[5]), args[6])))
