"""The offline replica (issue 26): open, delta, write-to-screen latency and memory of StrataClient's Replica.

    replica.py measure    the phases below on each live Strata target; writes <run>/replica.json
    replica.py markdown   prints the section of latest.md (used by bench.py report)

Environment (besides common.py's): BENCH_REPLICA_BIN (the ReplicaBench executable; by default next to
BENCH_STRATA_BIN), BENCH_REPLICA_OPEN_RUNS (3), BENCH_REPLICA_WRITES (500), BENCH_REPLICA_DELTA_ROWS
(10000), BENCH_REPLICA_TARGETS (strata_sqlite,strata_pg) to measure one database alone.

Every phase is a run of ReplicaBench (benchmarks/Sources/ReplicaBench), a client process of its own
that links StrataClient as an app does and prints one JSON object. The replica keeps `Person` with
the defining query `personID le SCALE`: the generated rows and none of those the change feed's
measurement inserted before, so it holds 100,000 rows at the default scale whatever ran before.
Tracking of Person is switched on first (as feed.py does: `strata service track`, then a reload).

1. First download: a new replica in an empty directory, then `sync()`: time and rows/s (median of
   the repeats, each from an empty directory).
2. Open: `Replica.open` of that directory in a new process (an app launch), alternately with the
   database dropped from the page cache first (posix_fadvise DONTNEED: read from the disk) and
   without (the page cache warm, the usual relaunch); median of BENCH_REPLICA_OPEN_RUNS each. Memory:
   the process's VmRSS growth over the open, per 100,000 rows; also after malloc_trim (what the
   replica keeps, without what glibc holds freed) and the peak (VmHWM, reset before the open).
3. Delta: 10,000 distinct rows (every tenth key) updated on the server by another client (one
   `applyChanges`, one transaction), then the replica's `sync()` timed: rows/s. Median of the repeats.
   Then one more open.
4. Local write to observer: a `ReplicaStore` query (`personID <= 200` ordered by firstName) over the
   table; 500 `update`s of its rows (after 20 unmeasured), one at a time, each a new firstName: time from
   the call to the event on `events()` (a task of its own) and to the main actor seeing the query's
   `rows` with the new value (withObservationTracking's onChange, then a main-actor task, where
   SwiftUI would render). Keys 1–200 in turn, so some writes are a row's first edit since the last sync
   and the rest edit a row whose change is still unsent (the replica merges them): reported apart too.
   Every write is one SQLite transaction (WAL, synchronous=FULL: the log fsynced), so the disk's own
   write + fsync (200 bytes, 200 times, same directory) is measured beside it. Then the push of those
   changes (one sync).
"""
import json
import os
import statistics
import subprocess
import time

import common

ENV = os.environ
LIB = os.path.dirname(os.path.abspath(__file__))
OPEN_RUNS = int(ENV.get("BENCH_REPLICA_OPEN_RUNS", "3"))
WRITES = int(ENV.get("BENCH_REPLICA_WRITES", "500"))
DELTA_ROWS = int(ENV.get("BENCH_REPLICA_DELTA_ROWS", "10000"))
QUERY_LIMIT = 200
# A phase that takes longer than this is stopped (subprocess kills it) and reported as failed.
PHASE_TIMEOUT = 900


def path():
    return os.path.join(common.RUN_DIR, "replica.json")


def binary():
    explicit = ENV.get("BENCH_REPLICA_BIN")
    if explicit:
        return explicit
    return os.path.join(os.path.dirname(ENV.get("BENCH_STRATA_BIN", "")), "ReplicaBench")


def log(text):
    print("  replica " + text, flush=True)


def run_phase(target, directory, phase, *extra):
    """One ReplicaBench process; its JSON result. Its progress lines (stderr) are passed on."""
    command = [binary(), target.base, "cardealer", ENV.get("BENCH_USER", "bench"), "-", directory, phase,
               "--scale", str(common.SCALE), "--where", f"personID le {common.SCALE}", *extra]
    env = dict(ENV)
    env["BENCH_PASSWORD"] = ENV.get("BENCH_PASSWORD", "")
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=PHASE_TIMEOUT, env=env)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"ReplicaBench {phase} did not finish within {PHASE_TIMEOUT} s (stopped)")
    for line in done.stderr.splitlines():
        if line.startswith("  replica "):
            print(f"  replica {target.label:<18} {line[len('  replica '):]}", flush=True)
    if done.returncode != 0:
        problem = [line for line in done.stderr.splitlines() if not line.startswith("  replica ")]
        raise RuntimeError(f"ReplicaBench {phase} exited with {done.returncode}: {' '.join(problem[-5:]) or 'no message'}")
    lines = done.stdout.strip().splitlines()
    if not lines:
        raise RuntimeError(f"ReplicaBench {phase} printed no result")
    return json.loads(lines[-1])


def disk(directory):
    """What the replica's directory is on: file system, device, whether the kernel calls it rotational."""
    found = subprocess.run(["findmnt", "-n", "-o", "SOURCE,FSTYPE,OPTIONS", "-T", directory], capture_output=True, text=True)
    source, fstype, options = (found.stdout.split() + ["?", "?", "?"])[:3]
    info = {"source": source, "fstype": fstype, "options": options}
    device = os.path.basename(source)
    block = f"/sys/class/block/{device}"
    if os.path.exists(block):
        # A partition's queue is its disk's.
        disk_dir = block if os.path.exists(f"{block}/queue") else os.path.dirname(os.path.realpath(block))
        read = lambda name: open(os.path.join(disk_dir, name)).read().strip() if os.path.exists(os.path.join(disk_dir, name)) else None
        info["rotational"] = read("queue/rotational") == "1"
        info["model"] = read("device/model")
        driver = os.path.join(disk_dir, "device/driver")
        info["driver"] = os.path.basename(os.path.realpath(driver)) if os.path.exists(driver) else None
        sectors = read("size")
        info["size_gb"] = round(int(sectors) * 512 / 1e9) if sectors else None
    parts = [f"{fstype} on {source}"]
    if info.get("driver"):
        parts.append(f"driver {info['driver']}")
    if info.get("model"):
        parts.append(info["model"])
    if info.get("size_gb"):
        parts.append(f"{info['size_gb']} GB")
    if "rotational" in info:
        parts.append("rotational per the kernel" if info["rotational"] else "not rotational")
    info["text"] = ", ".join(parts)
    return info


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def measure_target(target, directory):
    entry = {}
    # The replica's download and deltas need tracking of Person; feed.py may have left it either way.
    target.track(True)

    # One unmeasured download first: the server's first check of the bench user's password is a
    # bcrypt (hundreds of milliseconds at the default cost), which its sign-in cache then spares.
    run_phase(target, directory, "download")
    downloads = []
    for _ in range(common.REPEAT):
        downloads.append(run_phase(target, directory, "download"))
    entry["download"] = {"runs": downloads, "sync_s": median(r["sync_s"] for r in downloads),
                         "apply_s": median(r.get("apply_s") for r in downloads),
                         "rows_per_s": median(r["rows_per_s"] for r in downloads), "rows": downloads[-1]["rows"],
                         "database_bytes": downloads[-1]["after_database_bytes"],
                         "wal_bytes": downloads[-1]["after_wal_bytes"]}
    if downloads[-1]["rows"] != common.SCALE:
        raise RuntimeError(f"the replica holds {downloads[-1]['rows']} rows, not the {common.SCALE} generated")

    # Each open in a new process, the first with the files dropped from the page cache, then taking turns.
    opens = {"evicted": [], "warm": []}
    for _ in range(OPEN_RUNS):
        opens["evicted"].append(run_phase(target, directory, "open", "--evict"))
        opens["warm"].append(run_phase(target, directory, "open"))
    entry["open"] = {kind: {"runs": runs, "open_ms": median(r["open_ms"] for r in runs),
                            "rows": runs[-1]["rows"],
                            "rss_growth_per_100k_rows_kib": median(r["rss_growth_per_100k_rows_kib"] for r in runs),
                            "rss_growth_after_trim_per_100k_rows_kib": median(r["rss_growth_after_trim_per_100k_rows_kib"] for r in runs),
                            "peak_growth_kib": median(r.get("peak_growth_kib") for r in runs),
                            "rows_read_ms": median(r["rows_read_ms"] for r in runs),
                            "indexed_query_ms": median(r["indexed_query_ms"] for r in runs),
                            "indexed_query_rows": runs[-1]["indexed_query_rows"],
                            "evicted": all(r.get("evicted", False) for r in runs) if kind == "evicted" else None}
                     for kind, runs in opens.items()}

    deltas = []
    for round_ in range(common.REPEAT):
        deltas.append(run_phase(target, directory, "delta", "--delta-rows", str(DELTA_ROWS), "--tag", f"{round_}{int(time.time())}"))
    entry["delta"] = {"runs": deltas, "rows": DELTA_ROWS, "sync_s": median(r["sync_s"] for r in deltas),
                      "apply_s": median(r.get("apply_s") for r in deltas),
                      "rows_per_s": median(r["rows_per_s"] for r in deltas),
                      "server_update_s": median(r["server_update_s"] for r in deltas),
                      "wal_bytes": deltas[-1]["after_wal_bytes"]}
    after_delta = run_phase(target, directory, "open")
    entry["open_after_delta"] = after_delta

    observed = run_phase(target, directory, "observe", "--writes", str(WRITES), "--query-limit", str(QUERY_LIMIT),
                         "--tag", str(int(time.time())))
    entry["observe"] = observed
    return entry


def measure():
    if ENV.get("BENCH_REPLICA_SKIPPED"):
        json.dump({"skipped": ENV["BENCH_REPLICA_SKIPPED"]}, open(path(), "w"))
        return
    if not os.access(binary(), os.X_OK):
        json.dump({"skipped": f"{binary()} is missing (build the ReplicaBench product)"}, open(path(), "w"))
        log(f"skipped: {binary()} is missing")
        return
    root = os.path.dirname(os.path.dirname(LIB))
    commit = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                           text=True).stdout.strip()
    work = os.path.join(common.RUN_DIR, "replica")
    os.makedirs(work, exist_ok=True)
    results = {
        "settings": {"scale": common.SCALE, "where": f"personID le {common.SCALE}", "open_runs": OPEN_RUNS,
                     "repeat": common.REPEAT, "writes": WRITES, "delta_rows": DELTA_ROWS, "query_limit": QUERY_LIMIT},
        "run": {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                "commit": commit + (" (with uncommitted changes)" if dirty else ""),
                "load_before": open("/proc/loadavg").read().split()[:3]},
        "disk": disk(work),
    }
    only = [t for t in ENV.get("BENCH_REPLICA_TARGETS", "").split(",") if t]
    for name in common.STRATA:
        if not common.live(name) or (only and name not in only):
            continue
        directory = os.path.join(work, name)
        try:
            results[name] = measure_target(common.Target(name), directory)
        except Exception as error:  # report what failed and go on with the next database
            results[name] = {"failed": f"{type(error).__name__}: {error}"}
            log(f"{name}: failed: {results[name]['failed']}")
        json.dump(results, open(path(), "w"), indent=1)
    results["run"]["load_after"] = open("/proc/loadavg").read().split()[:3]
    json.dump(results, open(path(), "w"), indent=1)


def load():
    """The results for latest.json: without the per-write samples, which stay in <run>/replica.json."""
    results = common.load_json(path())
    if results is None:
        return None
    for name in common.STRATA:
        observed = (results.get(name) or {}).get("observe")
        if isinstance(observed, dict):
            observed.pop("samples_ms", None)
            observed.pop("samples_re_edit", None)
    return results


def markdown(results):
    lines, done = common.section_start("Offline replica (issue 26)", results)
    if done:
        return lines
    s = results.get("settings", {})
    run = results.get("run", {})
    lines.append(common.measured_when(run) + f". ReplicaBench (StrataClient's `Replica` in a client process "
                 f"of its own, a new process per phase) keeps `Person` where `{s.get('where')}`; the replica's directory is on "
                 f"{results.get('disk', {}).get('text', '?')}.")
    lines.append("")
    row = common.target_table(lines, results)

    num = common.fmt_num
    # Latencies below a millisecond (a first edit, the disk's fsync) keep two decimals.
    short = lambda v: "—" if v is None else (f"{v:.2f}" if v < 1 else num(v))
    ms = lambda v: f"{num(v)} ms"
    pair = lambda x: f"{short(x['p50_ms'])} / {short(x['p99_ms'])} ms"
    mib = lambda kib: f"{kib / 1024:,.1f} MiB"
    runs = s.get("open_runs")
    row("first download: `sync()` of an empty replica, s (rows/s)",
        lambda e: f"{e['download']['sync_s']:.2f} s ({num(e['download']['rows_per_s'])} rows/s, {e['download']['rows']:,} rows)")
    row("… of which in the local database, mostly while the rest arrives (`SyncReport.applyDuration`), s (rows/s)",
        lambda e: "—" if e["download"].get("apply_s") is None else
        f"{e['download']['apply_s']:.2f} s ({num(e['download']['rows'] / e['download']['apply_s'])} rows/s)")
    row(f"cold open of the {s.get('scale', 0):,}-row replica in a new process, page cache warm (goal < 1 s), median of {runs}",
        lambda e: ms(e["open"]["warm"]["open_ms"]))
    row("the same with the database dropped from the page cache first (read from the disk)",
        lambda e: ms(e["open"]["evicted"]["open_ms"]) + ("" if e["open"]["evicted"]["evicted"] else " (eviction refused)"))
    row("database on disk (`replica.sqlite`)",
        lambda e: f"{e['download']['database_bytes'] / 1e6:.1f} MB")
    row(f"SQL query of the {s.get('query_limit')} rows with the lowest keys (the key's index), median of 21 (goal < 5 ms)",
        lambda e: f"{short(e['open']['warm']['indexed_query_ms'])} ms ({e['open']['warm']['indexed_query_rows']} rows)")
    row(f"open after a {s.get('delta_rows', 0):,}-row delta",
        lambda e: f"{ms(e['open_after_delta']['open_ms'])} ({e['open_after_delta']['before_open_wal_bytes'] / 1e6:.1f} MB write-ahead log)")
    row(f"applying a {s.get('delta_rows', 0):,}-row delta: `sync()` (goal < 1 s), rows/s",
        lambda e: f"{ms(e['delta']['sync_s'] * 1000)} ({num(e['delta']['rows_per_s'])} rows/s)")
    row(f"… of which applying the delta's pages to the local database (`SyncReport.applyDuration`, goal ≤ 100 ms)",
        lambda e: "—" if e["delta"].get("apply_s") is None else ms(e["delta"]["apply_s"] * 1000))
    row(f"… the server's `applyChanges` of those {s.get('delta_rows', 0):,} updates (another client, not the replica)",
        lambda e: ms(e["delta"]["server_update_s"] * 1000))
    row(f"local write → event on `events()`, p50 / p99 over {s.get('writes')} writes (goal p99 < 16 ms)",
        lambda e: pair(e["observe"]["to_event"]))
    row(f"local write → `ReplicaStore` query's `rows` on the main actor, p50 / p99 (goal p99 < 16 ms)",
        lambda e: pair(e["observe"]["to_query_rows"]))
    row("… of which a row's first edit since the sync; a further edit of a row whose change is unsent: to the query's rows, p50 / p99 (writes)",
        lambda e: f"first {pair(e['observe']['first_edit']['to_query_rows'])} ({e['observe']['first_edit']['to_query_rows']['count']}); "
                  f"further {pair(e['observe']['re_edit']['to_query_rows'])} ({e['observe']['re_edit']['to_query_rows']['count']})")
    row("… `update` returning (one SQLite transaction, the log fsynced), p50 / p99",
        lambda e: pair(e["observe"]["update_returned"]))
    row("… the disk alone: write of 200 bytes + fsync, p50 / p99",
        lambda e: pair(e["observe"]["fsync"]))
    row("memory per 100,000 rows: RSS growth over the open (after malloc_trim), median",
        lambda e: f"{mib(e['open']['warm']['rss_growth_per_100k_rows_kib'])} ({mib(e['open']['warm']['rss_growth_after_trim_per_100k_rows_kib'])})")
    row("peak RSS growth during the open",
        lambda e: mib(e["open"]["warm"]["peak_growth_kib"]))
    row(f"`rows(\"Person\")` of the whole table (every row built, sorted by key)",
        lambda e: ms(e["open"]["warm"]["rows_read_ms"]))
    row(f"store query's first rows (`personID <= {s.get('query_limit')}` of the whole table)",
        lambda e: ms(e["observe"]["query_first_rows_ms"]))
    row("push of the writes' pending changes: one `sync()`",
        lambda e: f"{ms(e['observe']['push_s'] * 1000)} ({e['observe']['push_sent']} changes)")
    common.target_failures(lines, results)
    lines.append("")
    lines.append(f"Download and delta: median of {s.get('repeat')} runs (each download from an empty directory, after one unmeasured that warms the server's sign-in cache; each delta "
                 f"updates the same {s.get('delta_rows', 0):,} rows, every {max(1, s.get('scale', 0) // max(1, s.get('delta_rows', 1)))}th key, to new values). The writes update rows "
                 f"of the query (keys 1–{s.get('query_limit')}, in turn) one at a time, after 20 unmeasured; each is on disk "
                 f"(fsync) before `update` returns. Memory is the process's VmRSS from /proc/self/status.")
    return lines


if __name__ == "__main__":
    common.module_main(__doc__, measure, markdown, load)
