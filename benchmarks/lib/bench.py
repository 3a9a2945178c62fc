#!/usr/bin/env python3
"""Scenarios of benchmarks/run: capture, measure, report. Standard library only.

    bench.py capture   fetch every scenario once from every target; keep Strata's bodies for the ceiling
    bench.py measure   load each target with wrk (or time single requests) and write measure.json
    bench.py report    merge measurements, micro-benchmarks and the machine into results; print the table
    bench.py report-feed, report-replica   after --feed-only / --replica-only: that section replaces the last results' one

Targets and settings come from the environment that benchmarks/run sets (BENCH_*), read in common.py with
the scenario table and the helpers bench.py shares with feed.py, replica.py and scaleout.py. Every target is
measured in the same run on the same machine; results are ratios, not absolute claims.
"""

import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse

import feed
import replica
import scaleout
from common import (CONNECTIONS, DURATION, ENV, GROUP_SQL, POSTMASTER, REPEAT, RUN_DIR, SCALE, SCENARIOS, STRATA, TARGETS, WARMUP,
                    WRK_THREADS, batch_body, cluster_cpu_seconds, cpu_seconds, fmt_num, fmt_ratio, live, median_of, ratio,
                    request, rss_kib, split, summarize_wrk, wrk)

BODIES = os.path.join(RUN_DIR, "bodies")


# ----------------------------------------------------------------------------------------------
# HTTP helpers
# ----------------------------------------------------------------------------------------------

def metric_total(base, name="strata_sql_statements_total"):
    status, _, data = request(base, "/metrics", headers={"Accept": "text/plain"})
    if status != 200:
        return None
    total = 0.0
    for line in data.decode().splitlines():
        if line.startswith(name) and not line.startswith("#"):
            total += float(line.rsplit(" ", 1)[1])
    return total


def feature_available(feature):
    """Probes a running Strata for a feature that may not be on main yet (data tables, issue 8)."""
    base = TARGETS["strata_sqlite"]["url"]
    if feature == "auth":
        return all(TOKEN.get(t) for t in STRATA if live(t))
    if feature == "datatables":
        status, _, _ = request(base, "/cardealer/$tables/Person?$top=1")
        return status == 200
    if feature == "sql":
        status, _, _ = request(base, "/cardealer/$sql", "POST", json.dumps({"sql": 'SELECT "personID" FROM "Person" LIMIT 1'}))
        return status == 200
    return True


TOKEN = {}
AUTH_NOTE = {}


def load_token():
    path = os.path.join(RUN_DIR, "tokens.json")
    if os.path.exists(path):
        TOKEN.update(json.load(open(path)))


def prepare_auth():
    """Signs in on each Strata target as the account benchmarks/run created (role editor) for a JWT.

    The token is sent with every write (writes need an editor) and with the authenticated GET; the
    other reads are anonymous (benchmarks/run grants anonymous reads of cardealer, as the demo does).
    """
    username = ENV.get("BENCH_USER", "bench")
    password = ENV.get("BENCH_PASSWORD", "")
    tokens = {}
    for target in STRATA:
        if not live(target):
            continue
        base = TARGETS[target]["url"]
        status, _, data = request(base, "/auth/token", "POST", json.dumps({"username": username, "password": password}))
        if status != 200:
            AUTH_NOTE["why"] = f"POST /auth/token on {TARGETS[target]['label']} answered {status}: {data[:200]!r}"
            return
        tokens[target] = json.loads(data)["access_token"]
    TOKEN.update(tokens)
    with open(os.path.join(RUN_DIR, "tokens.json"), "w") as f:
        json.dump(tokens, f)


def scenario_headers(scenario, target):
    headers = dict(scenario.get("headers", {}))
    if (scenario.get("needs") == "auth" or scenario.get("signed_in")) and target in STRATA and TOKEN.get(target):
        headers["Authorization"] = "Bearer " + TOKEN[target]
    return headers


def target_method(scenario, target):
    """Datasette reads everything with GET (its SQL too, as ?sql=); the others as the scenario says."""
    return "GET" if target == "datasette" else scenario.get("method", "GET")


def target_path(scenario, target):
    if target in STRATA:
        return scenario["strata"]
    if target == "ceiling":
        return "/" + scenario["id"]
    if target == "pg_floor":
        return scenario.get("pg_floor")
    return scenario.get("datasette")


# ----------------------------------------------------------------------------------------------
# capture
# ----------------------------------------------------------------------------------------------

def capture():
    os.makedirs(BODIES, exist_ok=True)
    try:
        prepare_auth()
    except Exception as error:  # a feature still landing must not stop the run
        AUTH_NOTE["why"] = f"{type(error).__name__}: {error}"
    found = {}
    # The full stream goes first, on servers that have answered nothing big yet: its peak RSS growth
    # then includes whatever a first large response makes the server allocate (it is reported as the
    # larger of this cold growth and the growth while measuring).
    for scenario in sorted(SCENARIOS, key=lambda s: s["kind"] != "stream"):
        entry = {}
        needs = scenario.get("needs")
        if needs and not feature_available(needs):
            found[scenario["id"]] = {"skipped": skip_note(needs)}
            print(f"  {scenario['id']}: skipped ({skip_note(needs)})")
            continue
        if scenario["kind"] == "batch":
            found[scenario["id"]] = {}
            continue
        for target in ["strata_sqlite", "strata_pg", "datasette"]:
            path = target_path(scenario, target)
            if not live(target) or path is None:
                continue
            method = target_method(scenario, target)
            with RSSSampler(TARGETS[target]["pid"] if scenario["kind"] == "stream" else None) as sampler:
                body = scenario.get("body") if method != "GET" else None
                if scenario.get("pages") and target != "datasette":
                    # Every page, so that the cold growth covers the whole read; no body for the ceiling.
                    pages = odata_v4_pages(TARGETS[target]["url"], path, scenario_headers(scenario, target))
                    status, headers, data = pages["status"], {}, b""
                else:
                    status, headers, data = request(TARGETS[target]["url"], path, method, body, scenario_headers(scenario, target))
            if scenario["id"] == "post_single" and status == 201:
                # Keep the table at SCALE rows for the reads: the entity created here goes again.
                location = urllib.parse.urlsplit(headers.get("Location") or headers.get("location") or "").path
                deleted, _, _ = (request(TARGETS[target]["url"], location, "DELETE", headers=scenario_headers(scenario, target))
                                 if location else (None, None, None))
                if deleted != 204:
                    print(f"  warning: could not delete {location} after capturing the POST answer ({deleted})")
            entry[target] = {"status": status, "bytes": pages["bytes"] if scenario.get("pages") and target != "datasette" else len(data)}
            if scenario["kind"] == "stream":
                entry[target]["rss_growth_cold_mb"] = sampler.growth_mb
            if target == "strata_sqlite" and data:
                with open(os.path.join(BODIES, scenario["id"]), "wb") as f:
                    f.write(data)
            print(f"  {scenario['id']:<18} {TARGETS[target]['label']:<18} {status} {len(data):>10} bytes")
        found[scenario["id"]] = entry
    with open(os.path.join(RUN_DIR, "capture.json"), "w") as f:
        json.dump(found, f, indent=1)


def skip_note(feature):
    return {
        "auth": "n/a: no token could be had: " + AUTH_NOTE.get("why", "unknown"),
        "datatables": "n/a: GET /{service}/$tables (issue 8) is not on this build",
        "sql": "n/a: POST /{service}/$sql (issue 8) is not on this build",
    }.get(feature, feature + " is not available")


# ----------------------------------------------------------------------------------------------
# wrk
# ----------------------------------------------------------------------------------------------

def wrk_request(scenario, target):
    """What wrk sends to one target for a scenario: URL, headers, method, body."""
    method = target_method(scenario, target)
    return (TARGETS[target]["url"] + target_path(scenario, target), scenario_headers(scenario, target), method,
            scenario.get("body") if method != "GET" else None)


def wrk_run(scenario, target):
    url, headers, method, body = wrk_request(scenario, target)
    pid = TARGETS[target]["pid"]
    postmaster = POSTMASTER if target in ("strata_pg", "pg_floor") else None
    before = cpu_seconds(pid) if pid else None
    database_before = cluster_cpu_seconds(postmaster) if postmaster else None
    run = wrk(url, DURATION, headers, method, body)
    after = cpu_seconds(pid) if pid else None
    if before is not None and after is not None and run["requests"]:
        # The server's own CPU time per request: steadier than req/s when other work shares the machine.
        run["cpu_us_per_request"] = (after - before) * 1e6 / run["requests"]
    if database_before is not None and run["requests"]:
        # PostgreSQL runs on the same cores: what it spends per request bounds Strata on it.
        run["database_cpu_us_per_request"] = (cluster_cpu_seconds(postmaster) - database_before) * 1e6 / run["requests"]
    return run


def measure_wrk(scenario, targets):
    """Runs the targets in rounds (A B C, A B C, …) rather than one after another (A A A, B B B), so
    that a machine whose speed drifts over a minute shifts every target's median alike and the
    ratios between them stay put."""
    for target in targets:
        if WARMUP > 0:
            url, headers, method, body = wrk_request(scenario, target)
            wrk(url, WARMUP, headers, method, body)
    runs = {target: [] for target in targets}
    for _ in range(REPEAT):
        for target in targets:
            runs[target].append(wrk_run(scenario, target))
    return {target: summarize_wrk(runs[target]) for target in targets}


# ----------------------------------------------------------------------------------------------
# streaming: time to first byte, rows/s, peak RSS growth of the server
# ----------------------------------------------------------------------------------------------

class RSSSampler:
    """Samples a process's resident memory every few milliseconds while a download runs."""

    def __init__(self, pid):
        self.pid = pid
        self.baseline = rss_kib(pid) if pid else None
        self.peak = self.baseline
        self.running = True
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while self.running:
            value = rss_kib(self.pid)
            if value is not None and (self.peak is None or value > self.peak):
                self.peak = value
            time.sleep(0.005)

    def __enter__(self):
        if self.pid:
            self.thread.start()
        return self

    def __exit__(self, *exc):
        self.running = False
        if self.pid:
            self.thread.join()

    @property
    def growth_mb(self):
        if self.baseline is None or self.peak is None:
            return None
        return (self.peak - self.baseline) / 1024.0


def curl_download(url, headers):
    command = ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code} %{time_starttransfer} %{time_total} %{size_download}"]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    command.append(url)
    out = subprocess.run(command, capture_output=True, text=True).stdout.split()
    return {"status": int(out[0]), "ttfb_s": float(out[1]), "total_s": float(out[2]), "bytes": int(out[3])}


def follow_pages(base, path, headers, next_link, count_rows=None):
    """Reads a collection page by page over one keep-alive connection: `next_link(response, data)` gives the
    next page's URL (or None), `count_rows(data)` the rows of a page when they are counted."""
    host, port = split(base)
    connection = http.client.HTTPConnection(host, port, timeout=120)
    all_headers = {"Accept": "application/json", **headers}
    started = time.perf_counter()
    ttfb = None
    rows = 0
    size = 0
    pages = 0
    while path:
        connection.request("GET", path, headers=all_headers)
        response = connection.getresponse()
        if ttfb is None:
            ttfb = time.perf_counter() - started
        data = response.read()
        if response.status != 200:
            raise RuntimeError(f"{base}{path} answered {response.status}: {data[:200]!r}")
        size += len(data)
        pages += 1
        if count_rows:
            rows += count_rows(data)
        link = next_link(response, data)
        path = None
        if link:
            parsed = urllib.parse.urlsplit(link)
            path = parsed.path + ("?" + parsed.query if parsed.query else "")
    total = time.perf_counter() - started
    connection.close()
    result = {"status": 200, "ttfb_s": ttfb, "total_s": total, "bytes": size, "pages": pages}
    if count_rows:
        result["rows"] = rows
    return result


def datasette_json_pages(base, path):
    """Follows Datasette's `Link: <…>; rel="next"` headers."""
    def next_link(response, _data):
        match = re.search(r'<([^>]+)>;\s*rel="next"', response.getheader("Link") or "")
        return match.group(1) if match else None
    return follow_pages(base, path, {}, next_link, count_rows=lambda data: len(json.loads(data)))


NEXT_LINK = re.compile(rb'"@odata\.nextLink":"([^"]+)"')


def odata_v4_pages(base, path, headers):
    """Follows V4's `@odata.nextLink`, as a V4 client reads a whole set. The link is found with a regular
    expression at the page's end, not by parsing the page, so that the client costs little of the time."""
    def next_link(_response, data):
        match = NEXT_LINK.search(data, max(0, len(data) - 2048))
        return match.group(1).decode().replace("\\/", "/") if match else None
    return follow_pages(base, path, headers, next_link)


def count_rows_v1(data):
    document = json.loads(data)
    d = document.get("d")
    return len(d) if isinstance(d, list) else len(d.get("results", []))


def measure_stream(scenario, target, cold_growth=None):
    base = TARGETS[target]["url"]
    pid = TARGETS[target]["pid"]
    runs = []
    for _ in range(REPEAT):
        before = cpu_seconds(pid) if pid else None
        with RSSSampler(pid) as sampler:
            if target == "datasette":
                run = datasette_json_pages(base, scenario["datasette"])
            elif scenario.get("pages") == "odata":
                run = odata_v4_pages(base, target_path(scenario, target), scenario_headers(scenario, target))
                run["rows"] = SCALE
            else:
                run = curl_download(base + target_path(scenario, target), scenario_headers(scenario, target))
                run["rows"] = SCALE
        after = cpu_seconds(pid) if pid else None
        if before is not None and after is not None and run["rows"]:
            run["cpu_us_per_row"] = (after - before) * 1e6 / run["rows"]
        run["rss_growth_mb"] = sampler.growth_mb
        run["rows_per_s"] = run["rows"] / run["total_s"] if run["total_s"] else None
        runs.append(run)
    summary = {
        "rows_per_s": median_of(runs, "rows_per_s"),
        "ttfb_ms": statistics.median([r["ttfb_s"] * 1000 for r in runs]),
        "total_s": median_of(runs, "total_s"),
        "bytes": runs[0]["bytes"],
        "rows": runs[0]["rows"],
        "status": runs[0]["status"],
        "cpu_us_per_row": median_of(runs, "cpu_us_per_row"),
        "rss_growth_warm_mb": max([r["rss_growth_mb"] for r in runs if r["rss_growth_mb"] is not None], default=None),
        "rss_growth_cold_mb": cold_growth,
        "runs": [r["rows_per_s"] for r in runs],
    }
    growths = [g for g in (summary["rss_growth_warm_mb"], cold_growth) if g is not None]
    summary["rss_growth_mb"] = max(growths) if growths else None
    if "pages" in runs[0]:
        summary["pages"] = runs[0]["pages"]
    if target == "datasette":
        csv_runs = []
        for _ in range(REPEAT):
            with RSSSampler(pid) as sampler:
                run = curl_download(base + scenario["datasette_csv"], {})
            run["rss_growth_mb"] = sampler.growth_mb
            csv_runs.append(run)
        summary["csv_stream"] = {
            "rows_per_s": statistics.median([SCALE / r["total_s"] for r in csv_runs]),
            "ttfb_ms": statistics.median([r["ttfb_s"] * 1000 for r in csv_runs]),
            "bytes": csv_runs[0]["bytes"],
            "rss_growth_mb": max([r["rss_growth_mb"] for r in csv_runs if r["rss_growth_mb"] is not None], default=None),
        }
    return summary


# ----------------------------------------------------------------------------------------------
# $batch of 1,000 inserts
# ----------------------------------------------------------------------------------------------

def measure_batch(scenario, target):
    base = TARGETS[target]["url"]
    times = []
    statuses = set()
    created = None
    for run in range(max(REPEAT, 3) + 1):
        body, content_type = batch_body(1000, run)
        started = time.perf_counter()
        headers = scenario_headers(scenario, target)
        headers["Content-Type"] = content_type
        status, _, data = request(base, scenario["strata"], "POST", body, headers)
        elapsed = time.perf_counter() - started
        statuses.add(status)
        created = data.decode(errors="replace").count("201 Created")
        if run > 0:  # the first batch warms up
            times.append(elapsed)
    return {"batch_ms": statistics.median(times) * 1000, "status": sorted(statuses), "created_per_batch": created,
            "runs": [t * 1000 for t in times]}


# ----------------------------------------------------------------------------------------------
# measure
# ----------------------------------------------------------------------------------------------

def measure():
    load_token()
    captured = json.load(open(os.path.join(RUN_DIR, "capture.json")))
    results = {}
    # Reads first, writes last: the writes add rows to Person.
    for scenario in SCENARIOS:
        sid = scenario["id"]
        if "skipped" in captured.get(sid, {}):
            results[sid] = {"skipped": captured[sid]["skipped"]}
            continue
        entry = {}
        targets = []
        for target in TARGETS:
            if not live(target) or target_path(scenario, target) is None:
                continue
            # The ceiling serves one captured body: it has no further pages to follow.
            if target == "ceiling" and (scenario["kind"] == "batch" or scenario.get("pages")):
                continue
            if target == "ceiling" and not os.path.exists(os.path.join(BODIES, sid)):
                continue
            targets.append(target)
        if scenario["kind"] == "wrk":
            started = time.time()
            for target, result in measure_wrk(scenario, targets).items():
                result["bytes"] = result.get("bytes") or captured.get(sid, {}).get(target, {}).get("bytes")
                entry[target] = result
                print(f"  {sid:<18} {TARGETS[target]['label']:<18} {headline(scenario, result):<40}", flush=True)
            print(f"  {sid:<18} ({len(targets)} targets in {REPEAT} rounds, {time.time() - started:.0f} s)", flush=True)
        else:
            for target in targets:
                started = time.time()
                if scenario["kind"] == "stream":
                    result = measure_stream(scenario, target, captured.get(sid, {}).get(target, {}).get("rss_growth_cold_mb"))
                else:
                    result = measure_batch(scenario, target)
                result["bytes"] = result.get("bytes") or captured.get(sid, {}).get(target, {}).get("bytes")
                entry[target] = result
                print(f"  {sid:<18} {TARGETS[target]['label']:<18} {headline(scenario, result):<40} ({time.time() - started:.0f} s)", flush=True)
        if scenario["id"] in ("expand_2_levels", "apply_groupby_100k"):
            entry["statements"] = {}
            for target in STRATA:
                if live(target):
                    entry["statements"][target] = statements_for(TARGETS[target]["url"], scenario["strata"], scenario.get("headers"))
            print(f"  {sid:<18} SQL statements per request: {entry['statements']}")
        if scenario["id"] == "apply_groupby_100k" and live("strata_sqlite"):
            entry["sqlite_shell"] = sqlite_shell(GROUP_SQL)
            print(f"  {sid:<18} the same GROUP BY in sqlite3's shell: {entry['sqlite_shell']}")
        results[sid] = entry
    with open(os.path.join(RUN_DIR, "measure.json"), "w") as f:
        json.dump(results, f, indent=1)


def sqlite_shell(sql, runs=7):
    """The same query in SQLite's own shell on the file Strata SQLite serves (`sqlite3` with `.timer on`):
    the median of `runs` executions, each reading every row of the answer; what SQLite alone needs."""
    path = os.path.join(ENV.get("BENCH_SQLITE_DATA", ""), "cardealer.sqlite")
    script = ".timer on\n.output /dev/null\n" + "".join(f"{sql};\n" for _ in range(runs))
    done = subprocess.run(["sqlite3", "-readonly", path], input=script, capture_output=True, text=True)
    times = [float(t) for t in re.findall(r"Run Time: real ([0-9.]+)", done.stdout + done.stderr)]
    if done.returncode != 0 or len(times) != runs:
        return {"error": (done.stderr or done.stdout)[:200]}
    median = statistics.median(times)
    return {"ms_per_query": median * 1000, "queries_per_s": 1 / median if median else None, "runs": times}


def statements_for(base, path, headers=None):
    before = metric_total(base)
    status, _, _ = request(base, path, headers=headers)
    after = metric_total(base)
    if before is None or after is None or status != 200:
        return None
    return int(after - before)


STREAMS = [s["id"] for s in SCENARIOS if s["kind"] == "stream"]


def headline(scenario, result):
    if scenario["kind"] == "wrk":
        if result.get("rps") is None:
            return "no result: " + (result.get("raw") or "")[:60].replace("\n", " ")
        cpu = result.get("cpu_us_per_request")
        return (f"{result['rps']:.0f} req/s, p99 {result['p99_ms'] or 0:.1f} ms, errors {result['errors']}"
                + (f", server CPU {cpu:,.0f} µs/req" if cpu else ""))
    if scenario["kind"] == "stream":
        return f"{result['rows_per_s']:.0f} rows/s, TTFB {result['ttfb_ms']:.1f} ms, RSS +{result['rss_growth_mb'] or 0:.1f} MB"
    return f"{result['batch_ms']:.0f} ms per batch, status {result['status']}"


# ----------------------------------------------------------------------------------------------
# report
# ----------------------------------------------------------------------------------------------

def main_value(scenario, result):
    if result is None:
        return None
    if scenario["kind"] == "wrk":
        # A rate of mostly failed requests measures nothing (the failures are listed below the table).
        if result.get("errors") and result["errors"] * 2 >= (result.get("requests") or result["errors"]):
            return None
        return result.get("rps")
    if scenario["kind"] == "stream":
        return result.get("rows_per_s")
    return result.get("batch_ms")


def load_micro():
    path = os.path.join(RUN_DIR, "micro.json")
    if not os.path.exists(path):
        return None
    return json.load(open(path))


def report():
    measured = json.load(open(os.path.join(RUN_DIR, "measure.json")))
    machine = json.load(open(os.path.join(RUN_DIR, "machine.json")))
    micro = load_micro()
    rows = []
    for scenario in SCENARIOS:
        sid = scenario["id"]
        entry = measured.get(sid, {})
        if "skipped" in entry:
            rows.append({"id": sid, "title": scenario["title"], "skipped": entry["skipped"]})
            continue
        unit = {"wrk": "req/s", "stream": "rows/s", "batch": "ms/batch"}[scenario["kind"]]
        values = {t: main_value(scenario, entry.get(t)) for t in TARGETS}
        row = {"id": sid, "title": scenario["title"], "unit": unit, "values": values, "results": entry,
               "note": scenario.get("note")}
        if scenario["kind"] != "batch":
            row["ratios"] = {
                "sqlite_vs_ceiling": ratio(values["strata_sqlite"], values["ceiling"]),
                "pg_vs_ceiling": ratio(values["strata_pg"], values["ceiling"]),
                "sqlite_vs_datasette": ratio(values["strata_sqlite"], values["datasette"]),
                "pg_vs_datasette": ratio(values["strata_pg"], values["datasette"]),
            }
        rows.append(row)
    targets = evaluate_targets(measured, micro)
    results = {
        "scale_out": scaleout.load(),
        "feed": feed.load(),
        "replica": replica.load(),
        "machine": machine,
        "settings": {"connections": CONNECTIONS, "wrk_threads": WRK_THREADS, "duration_s": DURATION, "warmup_s": WARMUP,
                     "repeat": REPEAT, "scale": SCALE, "statistic": "median of the repeats"},
        "scenarios": rows,
        "micro": micro,
        "targets": targets,
    }
    out = ENV.get("BENCH_RESULTS", "benchmarks/results/latest.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump(results, f, indent=1, ensure_ascii=False)
        f.write("\n")
    write_report(results, out)


def write_report(results, out):
    markdown = render_markdown(results)
    with open(os.path.join(os.path.dirname(out), "latest.md"), "w") as f:
        f.write(markdown)
    print()
    print(markdown)
    readme = ENV.get("BENCH_UPDATE_README")
    if readme:
        update_readme(readme, markdown)


def report_section(key, module, option):
    """benchmarks/run --feed-only / --replica-only: that section (`key` of the results, measured by `module`)
    replaces the one of the last results; the rest is kept."""
    out = ENV.get("BENCH_RESULTS", "benchmarks/results/latest.json")
    if not os.path.exists(out):
        print(f"{out} does not exist: run benchmarks/run once without {option}; the results are in {module.path()}")
        print("\n".join(module.markdown(module.load())))
        return
    results = json.load(open(out))
    results[key] = module.load()
    with open(out, "w") as f:
        json.dump(results, f, indent=1, ensure_ascii=False)
        f.write("\n")
    write_report(results, out)


def evaluate_targets(measured, micro):
    def value(sid, target, key):
        return (measured.get(sid, {}).get(target) or {}).get(key)

    checks = []
    get_sqlite = value("get_by_key", "strata_sqlite", "rps")
    get_pg = value("get_by_key", "strata_pg", "rps")
    checks.append(check("GET by key ≥ 0.6× the ceiling (SQLite)", ratio(get_sqlite, value("get_by_key", "ceiling", "rps")), 0.6))
    checks.append(check("GET by key ≥ 0.6× the ceiling (PostgreSQL)", ratio(get_pg, value("get_by_key", "ceiling", "rps")), 0.6))
    # Not a target of Strata's: how far the same request gets with nothing of Strata in it.
    floor = value("get_by_key", "pg_floor", "rps")
    if floor:
        checks.append(check("GET by key ≥ 0.6× the ceiling (the PostgreSQL floor, for reference)",
                            ratio(floor, value("get_by_key", "ceiling", "rps")), 0.6))
    checks.append(check("GET by key ≥ 5× Datasette (SQLite)", ratio(get_sqlite, value("get_by_key", "datasette", "rps")), 5))
    for sid, version in [("stream_100k", ""), ("stream_100k_v4", ", V4")]:
        for target, label in [("strata_sqlite", "SQLite"), ("strata_pg", "PostgreSQL")]:
            growth = value(sid, target, "rss_growth_mb")
            checks.append(check(f"100k-row stream{version}: peak RSS growth < 20 MB ({label})", growth, 20, below=True, unit=" MB"))
    # Minimal metadata carries no per-row __metadata: V4's stream should pass a million rows a second.
    checks.append(check("100k-row stream, V4 ≥ 1,000,000 rows/s (SQLite)", value("stream_100k_v4", "strata_sqlite", "rows_per_s"),
                        1_000_000, unit=" rows/s"))
    checks.append(check("100k-row stream ≥ 3× Datasette's rows/s (SQLite)",
                        ratio(value("stream_100k", "strata_sqlite", "rows_per_s"), value("stream_100k", "datasette", "rows_per_s")), 3))
    statements = measured.get("expand_2_levels", {}).get("statements", {})
    for target, label in [("strata_sqlite", "SQLite"), ("strata_pg", "PostgreSQL")]:
        checks.append(check(f"$expand 2 levels over 1,000 parents ≤ 3 SQL statements ({label})", statements.get(target), 3,
                            below=True, inclusive=True, unit=" statements"))
    # Power Query folds a group-by into $apply: over 100k rows it must stay one statement (no download, no N+1).
    grouped = measured.get("apply_groupby_100k", {}).get("statements", {})
    for target, label in [("strata_sqlite", "SQLite"), ("strata_pg", "PostgreSQL")]:
        checks.append(check(f"$apply group-by over 100k rows = 1 SQL statement per page ({label})", grouped.get(target), 1,
                            below=True, inclusive=True, unit=" statements"))
    checks.append(check("POST single ≥ 0.3× GET by key (SQLite)", ratio(value("post_single", "strata_sqlite", "rps"), get_sqlite), 0.3))
    checks.append(check("POST single ≥ 0.3× GET by key (PostgreSQL, for reference)", ratio(value("post_single", "strata_pg", "rps"), get_pg), 0.3))
    for name, label in [("Client Codable decode 1000 rows", "into Codable types"),
                        ("Client decode 1000 rows", "into ODataValues"),
                        ("Client DataTable decode 1000 rows", "into DataTable rows")]:
        decode = ((micro or {}).get("benchmarks", {}).get(name) or {}).get("values_per_s")
        checks.append(check(f"Client decode ≥ 500k values/s ({label})", decode, 500_000, unit=" values/s"))
    return checks


def check(name, measured, limit, below=False, inclusive=False, unit="×"):
    if measured is None:
        met = None
    elif below:
        met = measured <= limit if inclusive else measured < limit
    else:
        met = measured >= limit
    return {"target": name, "measured": measured, "limit": limit, "met": met, "unit": unit}


def render_markdown(results):
    machine = results["machine"]
    s = results["settings"]
    lines = []
    lines.append(f"Run of {machine.get('date')} on {machine.get('cpu')} ({machine.get('nproc')} cores, "
                 f"{machine.get('memory')} memory), load average before measuring {machine.get('load_before')}, "
                 f"after {machine.get('load_after')}; commit {machine.get('commit')}.")
    lines.append(f"wrk: {s['wrk_threads']} thread(s), {s['connections']} connections, {s['duration_s']} s after a "
                 f"{s['warmup_s']} s warm-up, median of {s['repeat']} runs, the targets taking turns; data: `strata demo-data --scale {s['scale']}`.")
    if machine.get("datasette_missing"):
        lines.append(f"Datasette was not measured: {machine['datasette_missing']}.")
    lines.append("")
    lines.append("| scenario | unit | Strata SQLite | Strata PostgreSQL | ceiling | Datasette | SQLite ÷ ceiling | SQLite ÷ Datasette | PostgreSQL ÷ ceiling | PostgreSQL ÷ Datasette |")
    lines.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in results["scenarios"]:
        if "skipped" in row:
            lines.append(f"| {row['title']} | | skipped: {row['skipped']} | | | | | | | |")
            continue
        v = row["values"]
        r = row.get("ratios", {})
        lines.append(
            f"| {row['title']} | {row['unit']} | {fmt_num(v['strata_sqlite'])} | {fmt_num(v['strata_pg'])} | "
            f"{fmt_num(v['ceiling'])} | {fmt_num(v['datasette'])} | {fmt_ratio(r.get('sqlite_vs_ceiling'))} | "
            f"{fmt_ratio(r.get('sqlite_vs_datasette'))} | {fmt_ratio(r.get('pg_vs_ceiling'))} | {fmt_ratio(r.get('pg_vs_datasette'))} |")
    lines.append("")
    details = []
    for row in results["scenarios"]:
        if "skipped" in row:
            continue
        res = row["results"]
        floor = res.get("pg_floor")
        if isinstance(floor, dict) and floor.get("rps"):
            values = row["values"]
            details.append(
                f"- {row['title']}, PostgreSQL floor (Hummingbird + postgres-nio, one prepared statement, the row written "
                f"by hand; benchmarks/Sources/PostgresFloor): {fmt_num(floor['rps'])} req/s, "
                f"{fmt_ratio(ratio(floor['rps'], values.get('ceiling')))} the ceiling; Strata PostgreSQL reaches "
                f"{fmt_ratio(ratio(values.get('strata_pg'), floor['rps']))} of it")
        if row["id"] in STREAMS:
            for t in ["strata_sqlite", "strata_pg", "ceiling", "datasette"]:
                x = res.get(t)
                if x:
                    details.append(f"- {row['title']}, {TARGETS[t]['label']}: time to first byte {x['ttfb_ms']:.1f} ms, "
                                   f"{x['bytes'] / 1e6:.1f} MB in {x['total_s']:.2f} s, peak RSS growth "
                                   f"{mb(x.get('rss_growth_mb'))} (first download {mb(x.get('rss_growth_cold_mb'))}, "
                                   f"measured runs {mb(x.get('rss_growth_warm_mb'))})"
                                   + (f", server CPU {x['cpu_us_per_row']:.2f} µs per row" if x.get("cpu_us_per_row") else ""))
            csv = (res.get("datasette") or {}).get("csv_stream")
            if csv:
                details.append(f"- stream, Datasette CSV (`_stream=on`, its one-response export): {csv['rows_per_s']:,.0f} rows/s, "
                               f"time to first byte {csv['ttfb_ms']:.1f} ms, peak RSS growth {csv['rss_growth_mb'] or 0:.1f} MB")
        if row["id"] in STREAMS and row.get("note"):
            details.append(f"- {row['title']}: {row['note']}")
        if row["id"] == "apply_groupby_100k":
            shell = res.get("sqlite_shell") or {}
            if shell.get("ms_per_query"):
                details.append(f"- $apply group-by: the same GROUP BY in SQLite's shell on the same file (`sqlite3 -readonly`, "
                               f"`.timer on`, median of {len(shell['runs'])}): {shell['ms_per_query']:.1f} ms per query, "
                               f"{shell['queries_per_s']:,.0f} queries/s; Strata SQLite answers "
                               f"{fmt_ratio(ratio(row['values'].get('strata_sqlite'), shell['queries_per_s']))} of that rate "
                               f"over HTTP with 16 connections")
            elif shell.get("error"):
                details.append(f"- $apply group-by: SQLite's shell could not run the same query: {shell['error']}")
        if row["id"] == "expand_2_levels":
            st = res.get("statements", {})
            details.append(f"- $expand: SQL statements per request (from /metrics): SQLite {st.get('strata_sqlite')}, "
                           f"PostgreSQL {st.get('strata_pg')}")
        if row["id"] == "batch_1000":
            for t in STRATA:
                x = res.get(t)
                if x:
                    details.append(f"- $batch, {TARGETS[t]['label']}: {x['batch_ms']:.0f} ms per batch of 1,000 inserts "
                                   f"({1000 / x['batch_ms'] * 1000:,.0f} inserts/s), status {x['status']}, "
                                   f"{x['created_per_batch']} × 201 per batch")
        cpus = [f"{TARGETS[t]['label']} {res[t]['cpu_us_per_request']:,.0f}"
                for t in TARGETS
                if isinstance(res.get(t), dict) and res[t].get("cpu_us_per_request")]
        for t in ["strata_pg", "pg_floor"]:
            database_cpu = res[t].get("database_cpu_us_per_request") if isinstance(res.get(t), dict) else None
            if database_cpu:
                cpus.append(f"PostgreSQL itself (its backends, for {TARGETS[t]['label']}) {database_cpu:,.0f}")
        if cpus:
            details.append(f"- {row['title']}: server CPU µs per request {', '.join(cpus)}")
        sizes = []
        for t in ["strata_sqlite", "strata_pg", "ceiling", "datasette"]:
            x = res.get(t)
            if isinstance(x, dict) and x.get("bytes") and row["id"] not in STREAMS:
                sizes.append(f"{TARGETS[t]['label']} {x['bytes']:,} B")
            if isinstance(x, dict) and x.get("errors"):
                details.append(f"- {row['title']}, {TARGETS[t]['label']}: {x['errors']} failed requests")
        if sizes:
            details.append(f"- {row['title']}: response sizes {', '.join(sizes)}" + (f"; {row['note']}" if row.get("note") else ""))
    lines.extend(details)
    micro = results.get("micro")
    if micro and micro.get("benchmarks"):
        lines.append("")
        lines.append("| micro-benchmark (ordo-one/benchmark, median) | time per iteration | throughput | allocations per iteration |")
        lines.append("|---|---:|---:|---:|")
        for name, b in micro["benchmarks"].items():
            extra = f" ({b['values_per_s']:,.0f} values/s)" if b.get("values_per_s") else ""
            lines.append(f"| {name} | {fmt_time(b.get('wall_ns'))} | {fmt_num(b.get('per_s'))}/s{extra} | {fmt_num(b.get('mallocs'))} |")
        for name, why in MICRO_PENDING.items():
            if name not in micro["benchmarks"]:
                lines.append(f"| {name} | {why} | | |")
    elif micro and micro.get("skipped"):
        lines.append("")
        lines.append(f"Micro-benchmarks: skipped ({micro['skipped']}).")
    lines.append("")
    lines.append("| target | measured | met |")
    lines.append("|---|---:|:---:|")
    for c in results["targets"]:
        m = c["measured"]
        shown = "—" if m is None else (f"{m:.2f}{c['unit']}" if c["unit"] == "×" else f"{m:,.1f}{c['unit']}")
        lines.append(f"| {c['target']} | {shown} | {'yes' if c['met'] else ('no' if c['met'] is False else 'n/a')} |")
    lines += scaleout.markdown(results.get("scale_out"))
    lines += feed.markdown(results.get("feed"))
    lines += replica.markdown(results.get("replica"))
    return "\n".join(lines) + "\n"


def mb(value):
    return "—" if value is None else f"{value:.1f} MB"


def fmt_time(ns):
    if ns is None:
        return "—"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.1f} µs"
    return f"{ns:.0f} ns"


def update_readme(path, markdown):
    text = open(path).read()
    begin, end = "<!-- benchmarks:begin -->", "<!-- benchmarks:end -->"
    if begin not in text or end not in text:
        print(f"{path} has no {begin} … {end} markers; not updated")
        return
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    with open(path, "w") as f:
        f.write(head + begin + "\n" + markdown + end + tail)
    print(f"Updated the Performance section of {path}")


# ----------------------------------------------------------------------------------------------
# micro-benchmarks: ordo-one/benchmark's JMH export → micro.json
# ----------------------------------------------------------------------------------------------

# Values (properties) handled per iteration, for values/s.
MICRO_VALUES = {"Client decode 1000 rows": 5000, "Client Codable decode 1000 rows": 5000,
                "Client DataTable decode 1000 rows": 5000, "Serialize 100 rows": 500}
# Micro-benchmarks of features not on main yet: reported as n/a with the reason when absent.
MICRO_PENDING = {"Client DataTable decode 1000 rows": "n/a: DataTable (issue 8) is not on this build"}


def micro(paths):
    benchmarks = {}
    for path in paths:
        for element in json.load(open(path)):
            name = element["benchmark"].rsplit(".", 1)[-1].replace("_", " ")
            primary = element["primaryMetric"]
            secondary = element.get("secondaryMetrics", {})

            def p50(metric):
                return metric["scorePercentiles"].get("50.0") if metric else None

            per_s = p50(primary)
            wall = p50(secondary.get("Time (wall clock)"))
            entry = {
                "per_s": per_s,
                "wall_ns": wall * 1000 if wall is not None else None,
                "cpu_ns": (p50(secondary.get("Time (total CPU)")) or 0) * 1000 or None,
                "mallocs": p50(secondary.get("Malloc (total)")),
                "instructions": p50(secondary.get("Instructions")),
                "iterations": element.get("measurementIterations"),
            }
            if name in MICRO_VALUES and per_s:
                entry["values_per_s"] = per_s * MICRO_VALUES[name]
            benchmarks[name] = entry
    result = {"tool": "ordo-one/benchmark 1.38.1", "statistic": "p50", "benchmarks": benchmarks}
    with open(os.path.join(RUN_DIR, "micro.json"), "w") as f:
        json.dump(result, f, indent=1)
    for name, b in benchmarks.items():
        print(f"  {name:<30} {fmt_time(b['wall_ns']):>10}  {fmt_num(b['per_s'])}/s  {fmt_num(b['mallocs'])} mallocs"
              + (f"  {b['values_per_s']:,.0f} values/s" if b.get("values_per_s") else ""))


def micro_skipped(reason):
    with open(os.path.join(RUN_DIR, "micro.json"), "w") as f:
        json.dump({"skipped": reason}, f)


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "capture":
        capture()
    elif command == "measure":
        measure()
    elif command == "report":
        report()
    elif command == "report-feed":
        report_section("feed", feed, "--feed-only")
    elif command == "report-replica":
        report_section("replica", replica, "--replica-only")
    elif command == "micro":
        micro(sys.argv[2:])
    elif command == "micro-skipped":
        micro_skipped(" ".join(sys.argv[2:]))
    else:
        print(__doc__)
        sys.exit(2)
