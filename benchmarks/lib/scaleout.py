"""Two Strata servers behind nginx beside one, on the same PostgreSQL database and machine.

    scaleout.py measure   GET by key and POST through nginx in front of one server and in front of two;
                          writes <run>/scaleout.json
    scaleout.py markdown  prints the section of latest.md (used by bench.py report)

benchmarks/run starts a second Strata PostgreSQL server (its own data directory, the same database and
key secret) and two nginx instances: one with the first server as its only upstream, one round-robin over
both. The rounds alternate (one, two, one, two, …) as bench.py's do, and the ratio is two ÷ one of the
medians. Everything shares this machine's cores with nginx, wrk and PostgreSQL: docs/DEPLOYMENT.md says
what the ratio means here and how it grows with machines.
"""
import json
import os
import statistics

import common

ENV = os.environ
ONE = ENV.get("BENCH_SCALE_ONE_URL")
TWO = ENV.get("BENCH_SCALE_TWO_URL")
SERVER_PIDS = [p for p in ENV.get("BENCH_SCALE_SERVER_PIDS", "").split(",") if p]
SCENARIOS = [s for s in common.SCENARIOS if s["id"] in ("get_by_key", "post_single")]


def path():
    return os.path.join(common.RUN_DIR, "scaleout.json")


def headers(scenario, token):
    if scenario.get("signed_in") and token:
        return {"Authorization": f"Bearer {token}"}
    return {}


def sign_in(base):
    status, _, data = common.request(base, "/auth/token", "POST", json.dumps(
        {"username": ENV.get("BENCH_USER", "bench"), "password": ENV.get("BENCH_PASSWORD", "")}))
    return json.loads(data)["access_token"] if status == 200 else None


def measure():
    if not (ONE and TWO):
        json.dump({"skipped": ENV.get("BENCH_SCALE_SKIPPED") or "not started"}, open(path(), "w"))
        return
    token = sign_in(TWO)
    results = {}
    for scenario in SCENARIOS:
        targets = {"one": ONE, "two": TWO}
        runs = {name: [] for name in targets}
        cpu = {name: [] for name in targets}
        for name, base in targets.items():
            common.wrk(base + scenario["strata"], common.WARMUP, headers(scenario, token), scenario.get("method", "GET"),
                       scenario.get("body"))
        for _ in range(common.REPEAT):
            for name, base in targets.items():
                before = sum(common.cpu_seconds(pid) or 0 for pid in SERVER_PIDS)
                run = common.wrk(base + scenario["strata"], common.DURATION, headers(scenario, token),
                                 scenario.get("method", "GET"), scenario.get("body"))
                used = sum(common.cpu_seconds(pid) or 0 for pid in SERVER_PIDS) - before
                runs[name].append(run)
                if run.get("requests"):
                    cpu[name].append(used / run["requests"] * 1e6)
        entry = {}
        for name in targets:
            rates = [r["rps"] for r in runs[name] if r["rps"] is not None]
            entry[name] = {
                "rps": statistics.median(rates) if rates else None,
                "p99_ms": statistics.median([r["p99_ms"] for r in runs[name] if r["p99_ms"] is not None] or [0]) or None,
                "errors": sum(r["errors"] for r in runs[name]),
                "server_cpu_us_per_request": statistics.median(cpu[name]) if cpu[name] else None,
            }
        one, two = entry["one"]["rps"], entry["two"]["rps"]
        entry["ratio"] = two / one if one and two else None
        results[scenario["id"]] = entry
        print(f"  scale-out {scenario['id']:<12} one: {one or 0:,.0f} req/s  two: {two or 0:,.0f} req/s  "
              f"two ÷ one: {entry['ratio'] or 0:.2f}", flush=True)
    json.dump(results, open(path(), "w"), indent=1)


def load():
    return common.load_json(path())


def markdown(results):
    lines, done = common.section_start("Scale-out: two servers behind nginx ÷ one", results, missing="no PostgreSQL run")
    if done:
        return lines
    lines.append("Both on this machine's cores, with nginx, wrk and PostgreSQL (docs/DEPLOYMENT.md explains the ratio).")
    lines.append("")
    lines.append("| scenario | one server | two servers | two ÷ one | server CPU µs/request (one, two) | errors |")
    lines.append("|---|---:|---:|---:|---:|---:|")
    for scenario in SCENARIOS:
        entry = results.get(scenario["id"]) or {}
        one, two = entry.get("one") or {}, entry.get("two") or {}

        def rate(x):
            return "—" if x.get("rps") is None else f"{x['rps']:,.0f} req/s"

        def us(x):
            return "—" if x.get("server_cpu_us_per_request") is None else f"{x['server_cpu_us_per_request']:.0f}"
        ratio = entry.get("ratio")
        lines.append(f"| {scenario['title']} | {rate(one)} | {rate(two)} | {'—' if ratio is None else f'{ratio:.2f}×'} | "
                     f"{us(one)}, {us(two)} | {one.get('errors', 0) + two.get('errors', 0)} |")
    return lines


if __name__ == "__main__":
    common.module_main(__doc__, measure, markdown, load)
