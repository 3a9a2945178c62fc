"""What bench.py and the scenario modules (feed.py, replica.py, scaleout.py) share. Standard library only.

Settings and targets from the environment that benchmarks/run sets (BENCH_*), bench.py's scenario table
(feed.py and scaleout.py measure some of its scenarios again), HTTP requests, wrk, a process's CPU time
and memory, the $batch body, a signed-in Strata target that can switch tracking (feed.py, replica.py),
number formatting, the pieces of a scenario module's section of latest.md and its command line.
This module imports none of the scenario modules nor bench.py: they import it.
"""

import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import urllib.parse

ENV = os.environ
RUN_DIR = ENV.get("BENCH_RUN_DIR", "benchmarks/.work/run")
LIB = os.path.dirname(os.path.abspath(__file__))

TARGETS = {
    "strata_sqlite": {"label": "Strata SQLite", "url": ENV.get("BENCH_SQLITE_URL"), "pid": ENV.get("BENCH_SQLITE_PID")},
    "strata_pg": {"label": "Strata PostgreSQL", "url": ENV.get("BENCH_PG_URL"), "pid": ENV.get("BENCH_PG_PID")},
    # Hummingbird + postgres-nio doing GET by key and nothing else (benchmarks/Sources/PostgresFloor):
    # what Strata PostgreSQL could reach on this machine if Strata itself cost nothing.
    "pg_floor": {"label": "PostgreSQL floor", "url": ENV.get("BENCH_PG_FLOOR_URL"), "pid": ENV.get("BENCH_PG_FLOOR_PID")},
    "ceiling": {"label": "ceiling", "url": ENV.get("BENCH_CEILING_URL"), "pid": ENV.get("BENCH_CEILING_PID")},
    "datasette": {"label": "Datasette", "url": ENV.get("BENCH_DATASETTE_URL"), "pid": ENV.get("BENCH_DATASETTE_PID")},
}  # in the order they are measured and reported
STRATA = ["strata_sqlite", "strata_pg"]
POSTMASTER = ENV.get("BENCH_POSTMASTER_PID")

WRK_THREADS = int(ENV.get("BENCH_WRK_THREADS", "1"))
CONNECTIONS = int(ENV.get("BENCH_CONNECTIONS", "16"))
DURATION = int(ENV.get("BENCH_DURATION", "5"))
WARMUP = int(ENV.get("BENCH_WARMUP", "1"))
REPEAT = int(ENV.get("BENCH_REPEAT", "3"))
SCALE = int(ENV.get("BENCH_SCALE", "100000"))
KEY = SCALE // 2

V1 = {"MaxDataServiceVersion": "1.0"}
V4 = {"OData-MaxVersion": "4.0"}


def q(text):
    """Percent-encodes a query value (spaces, quotes) the way a client would."""
    return urllib.parse.quote(text, safe="$,()/=*")


DATASETTE_PAGE = "_shape=array&_nocount=1&_nofacet=1"
EXPAND_SQL = (
    "select p.personID, p.firstName, p.lastName, p.ssn, p.createDate, pc.personCarID, pc.createStamp as ownedSince, "
    "c.carID, c.make, c.model, c.manufactureDate, c.createStamp "
    "from (select * from Person order by personID limit 1000) p "
    "left join PersonCar pc on pc.personID = p.personID left join Car c on c.carID = pc.carID "
    "order by p.personID, pc.personCarID")
GROUP_SQL = "select lastName, count(*) as N from Person group by lastName order by lastName"
CLIENT_SQL = ('SELECT "personID", "firstName", "lastName" FROM "Person" WHERE "lastName" >= :name '
              'ORDER BY "lastName", "personID" LIMIT 100')

# Each scenario: what every target is asked. `strata` paths apply to both Strata targets; `datasette` is
# the closest request its JSON API allows (None: it has none); `ceiling` serves Strata SQLite's body.
SCENARIOS = [
    {"id": "get_by_key", "title": "GET one entity by key", "kind": "wrk",
     "strata": f"/cardealer/Person({KEY})",
     "datasette": f"/cardealer/Person/{KEY}.json?_shape=array",
     "pg_floor": f"/person/{KEY}",
     "note": "Datasette: its row page as a JSON array"},
    {"id": "get_by_key_v4", "title": "GET one entity by key, OData V4", "kind": "wrk",
     "strata": f"/cardealer/Person({KEY})", "headers": V4,
     "datasette": None,
     "note": "V4 minimal metadata (no __metadata per entity); Datasette: see the V2 row"},
    {"id": "page_100", "title": "GET a 100-row page", "kind": "wrk",
     "strata": "/cardealer/Person?$top=100",
     "datasette": f"/cardealer/Person.json?{DATASETTE_PAGE}&_size=100"},
    {"id": "page_100_v4", "title": "GET a 100-row page, OData V4", "kind": "wrk",
     "strata": "/cardealer/Person?$top=100", "headers": V4,
     "datasette": None, "note": "V4 minimal metadata; Datasette: see the V2 row"},
    {"id": "filter_indexed", "title": "$filter+$orderby, indexed column", "kind": "wrk",
     "strata": "/cardealer/Person?$filter=" + q("lastName ge 'M'") + "&$orderby=lastName&$top=100",
     "datasette": f"/cardealer/Person.json?{DATASETTE_PAGE}&_size=100&lastName__gte=M&_sort=lastName",
     "note": "index IX_Person_lastName (lastName, personID)"},
    {"id": "filter_unindexed", "title": "$filter+$orderby, column without index", "kind": "wrk",
     "strata": "/cardealer/Person?$filter=" + q("firstName ge 'M'") + "&$orderby=firstName&$top=100",
     "datasette": f"/cardealer/Person.json?{DATASETTE_PAGE}&_size=100&firstName__gte=M&_sort=firstName"},
    {"id": "expand_2_levels", "title": "$expand 2 levels, 1,000 parents", "kind": "wrk",
     "strata": "/cardealer/Person?$top=1000&$expand=PersonCar/Car",
     "datasette": "/cardealer.json?_shape=array&sql=" + urllib.parse.quote(EXPAND_SQL),
     "note": "Datasette: the same rows as one flat SQL join (no nesting)"},
    {"id": "stream_100k", "title": "stream all 100k rows", "kind": "stream",
     "strata": "/cardealer/Person", "headers": V1,
     "datasette": f"/cardealer/Person.json?{DATASETTE_PAGE}&_size=1000",
     "datasette_csv": "/cardealer/Person.csv?_stream=on&_size=max",
     "note": "Strata: one response (OData 1.0 has no server paging); Datasette: JSON pages of 1,000 rows following its Link header"},
    {"id": "stream_100k_v4", "title": "stream all 100k rows, OData V4", "kind": "stream",
     "strata": "/cardealer/Person", "headers": V4,
     "datasette": None,
     "pages": "odata",
     "note": "Strata: pages of 1,000 rows (the server's default page size) following @odata.nextLink over one "
             "keep-alive connection, as a V4 client reads a whole set; V4 minimal metadata; Datasette: see the V2 stream"},
    {"id": "apply_groupby_100k", "title": "$apply group-by over 100k rows", "kind": "wrk",
     "strata": "/cardealer/Person?$apply=" + q("groupby((lastName),aggregate($count as N))"), "headers": V4,
     "datasette": "/cardealer.json?_shape=array&sql=" + urllib.parse.quote(GROUP_SQL),
     "note": "OData V4 $apply: one SQL GROUP BY over all of Person; Datasette: the same GROUP BY as SQL"},
    {"id": "post_single", "title": "POST one entity", "kind": "wrk", "method": "POST", "signed_in": True,
     "strata": "/cardealer/Person",
     "body": '{"firstName":"Ann","lastName":"Lee","ssn":"123456789"}',
     "datasette": None, "note": "Datasette 0.65 has no write API"},
    {"id": "batch_1000", "title": "$batch of 1,000 inserts", "kind": "batch", "signed_in": True,
     "strata": "/cardealer/$batch", "datasette": None},
    {"id": "auth_get", "title": "GET by key with a bearer token", "kind": "wrk", "needs": "auth",
     "strata": f"/cardealer/Person({KEY})", "datasette": None,
     "note": "the JWT of POST /auth/token (account with role editor); the other reads are anonymous"},
    {"id": "datatable_fetch", "title": "data-table fetch, 100 rows", "kind": "wrk", "needs": "datatables",
     "strata": "/cardealer/$tables/Person?$top=100",
     "datasette": f"/cardealer/Person.json?{DATASETTE_PAGE}&_size=100"},
    {"id": "sql_query", "title": "$sql query, 100 rows", "kind": "wrk", "method": "POST", "needs": "sql",
     "strata": "/cardealer/$sql",
     "body": json.dumps({"sql": CLIENT_SQL, "parameters": {"name": "M"}}),
     "datasette": "/cardealer.json?_shape=array&name=M&sql=" + urllib.parse.quote(CLIENT_SQL.replace('"', ""))},
]


# ----------------------------------------------------------------------------------------------
# HTTP helpers
# ----------------------------------------------------------------------------------------------

def split(url):
    parsed = urllib.parse.urlsplit(url)
    return parsed.hostname, parsed.port or 80


def request(base, path, method="GET", body=None, headers=None, timeout=120):
    host, port = split(base)
    connection = http.client.HTTPConnection(host, port, timeout=timeout)
    all_headers = {"Accept": "application/json"}
    all_headers.update(headers or {})
    if body is not None and "Content-Type" not in all_headers:
        all_headers["Content-Type"] = "application/json"
    connection.request(method, path, body=body.encode() if isinstance(body, str) else body, headers=all_headers)
    response = connection.getresponse()
    data = response.read()
    result = (response.status, dict(response.getheaders()), data)
    connection.close()
    return result


def live(target):
    return bool(TARGETS[target]["url"])


# ----------------------------------------------------------------------------------------------
# wrk, CPU time, memory
# ----------------------------------------------------------------------------------------------

def parse_duration(text):
    match = re.match(r"([\d.]+)(us|ms|s|m)", text)
    if not match:
        return None
    value, unit = float(match.group(1)), match.group(2)
    return value * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}[unit]


def wrk(url, seconds, headers=None, method="GET", body=None):
    command = ["wrk", "-t", str(WRK_THREADS), "-c", str(CONNECTIONS), "-d", f"{seconds}s", "--latency", "--timeout", "10s"]
    env = dict(os.environ)
    for name, value in (headers or {}).items():
        command += ["-H", f"{name}: {value}"]
    if method != "GET" or body is not None:
        body_file = os.path.join(RUN_DIR, "wrk-body")
        with open(body_file, "w") as f:
            f.write(body or "")
        env.update({"WRK_METHOD": method, "WRK_BODY_FILE": body_file})
        command += ["-s", os.path.join(LIB, "request.lua")]
    command.append(url)
    output = subprocess.run(command, capture_output=True, text=True, env=env).stdout
    result = {"rps": None, "p50_ms": None, "p99_ms": None, "errors": 0, "requests": 0}
    for line in output.splitlines():
        line = line.strip()
        if line.startswith("Requests/sec:"):
            result["rps"] = float(line.split()[1])
        elif line.startswith("50%"):
            result["p50_ms"] = parse_duration(line.split()[1])
        elif line.startswith("99%"):
            result["p99_ms"] = parse_duration(line.split()[1])
        elif line.startswith("Non-2xx or 3xx responses:"):
            result["errors"] += int(line.split(":")[1])
        elif line.startswith("Socket errors:"):
            result["errors"] += sum(int(n) for n in re.findall(r"\d+", line))
        elif re.match(r"^\d+ requests in", line):
            result["requests"] = int(line.split()[0])
    if result["rps"] is None:
        result["raw"] = output[-2000:]
    return result


def cpu_seconds(pid):
    """User + system CPU time of a process (and its threads) so far, from /proc/<pid>/stat."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def cluster_cpu_seconds(postmaster):
    """CPU time so far of a PostgreSQL cluster: the postmaster and its children (the backends)."""
    total = cpu_seconds(postmaster) or 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == str(postmaster):
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def summarize_wrk(runs):
    rates = [r["rps"] for r in runs if r["rps"] is not None]
    summary = {
        "rps": statistics.median(rates) if rates else None,
        "p50_ms": median_of(runs, "p50_ms"),
        "p99_ms": median_of(runs, "p99_ms"),
        "cpu_us_per_request": median_of(runs, "cpu_us_per_request"),
        "database_cpu_us_per_request": median_of(runs, "database_cpu_us_per_request"),
        "errors": sum(r["errors"] for r in runs),
        "requests": sum(r["requests"] for r in runs),
        "runs": [r["rps"] for r in runs],
    }
    raw = [r.get("raw") for r in runs if r.get("raw")]
    if raw:
        summary["raw"] = raw[0]
    return summary


def median_of(runs, key):
    values = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(values) if values else None


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


# ----------------------------------------------------------------------------------------------
# $batch of 1,000 inserts
# ----------------------------------------------------------------------------------------------

def batch_body(count, run):
    boundary = f"batch_bench_{run}"
    changeset = f"changeset_bench_{run}"
    parts = [f"--{boundary}\r\nContent-Type: multipart/mixed; boundary={changeset}\r\n\r\n"]
    for n in range(count):
        body = json.dumps({"firstName": "Batch", "lastName": f"Insert{n}", "ssn": None})
        parts.append(
            f"--{changeset}\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n"
            f"Content-ID: {n + 1}\r\n\r\nPOST Person HTTP/1.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body.encode())}\r\n\r\n{body}\r\n")
    parts.append(f"--{changeset}--\r\n--{boundary}--\r\n")
    return "".join(parts), f"multipart/mixed; boundary={boundary}"


# ----------------------------------------------------------------------------------------------
# a Strata target signed in as the benchmark's editor and admin, which can switch tracking of Person
# ----------------------------------------------------------------------------------------------

ADMIN_USER = ENV.get("BENCH_ADMIN_USER", "benchadmin")
# The storage options of `strata` for each Strata target's database (for `strata service track`).
STORAGE = {
    "strata_sqlite": ["--data", ENV.get("BENCH_SQLITE_DATA", "")],
    "strata_pg": ["--database", ENV.get("BENCH_PG_DATABASE", ""), "--data", ENV.get("BENCH_PG_DATA", "")],
}


def sign_in(base, user, password):
    status, _, data = request(base, "/auth/token", "POST", json.dumps({"username": user, "password": password}))
    if status != 200:
        raise RuntimeError(f"POST /auth/token as {user} answered {status}: {data[:200]!r}")
    return json.loads(data)["access_token"]


class Target:
    def __init__(self, name):
        self.name = name
        self.label = TARGETS[name]["label"]
        self.base = TARGETS[name]["url"]
        self.pid = TARGETS[name]["pid"]
        self.storage = STORAGE[name]
        password = ENV.get("BENCH_PASSWORD", "")
        self.token = sign_in(self.base, ENV.get("BENCH_USER", "bench"), password)
        self.admin = sign_in(self.base, ADMIN_USER, ENV.get("BENCH_ADMIN_PASSWORD", password))

    def auth(self):
        return {"Authorization": "Bearer " + self.token}

    def track(self, on):
        command = [ENV.get("BENCH_STRATA_BIN", "strata"), "service", "track", "cardealer", "--tables", "Person"]
        if not on:
            command.append("--off")
        done = subprocess.run(command + self.storage, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"strata service track {'on' if on else '--off'} failed: {done.stderr.strip()}")
        status, _, data = request(self.base, "/admin/services/reload", "POST", "",
                                  {"Authorization": "Bearer " + self.admin})
        if status != 200:
            raise RuntimeError(f"POST /admin/services/reload answered {status}: {data[:200]!r}")


# ----------------------------------------------------------------------------------------------
# report: numbers, a scenario module's section of latest.md, its command line
# ----------------------------------------------------------------------------------------------

def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def fmt_ratio(value):
    return "—" if value is None else f"{value:.2f}×"


def fmt_num(value, unit=""):
    if value is None:
        return "—"
    if value >= 100:
        return f"{value:,.0f}{unit}"
    return f"{value:.1f}{unit}"


def load_json(file):
    """A scenario module's results file, or None before it ran."""
    return json.load(open(file)) if os.path.exists(file) else None


def section_start(title, results, missing="not run"):
    """The start of a scenario module's section of latest.md: its heading, and why it was not measured when
    it was not. Answers the lines and whether the section is complete already."""
    lines = ["", f"### {title}", ""]
    if results is None or "skipped" in results:
        lines.append(f"Not measured: {(results or {}).get('skipped', missing)}.")
        return lines, True
    return lines, False


def measured_when(run):
    """`Measured DATE, commit C, load average before …, after …` of a module's `run` record."""
    return (f"Measured {run.get('date')}, commit {run.get('commit')}, load average before {' '.join(run.get('load_before') or [])}, "
            f"after {' '.join(run.get('load_after') or [])}")


def target_failures(lines, results):
    """A line for each Strata target whose section failed, after its table."""
    for n in STRATA:
        if (results.get(n) or {}).get("failed"):
            lines.append(f"\n{TARGETS[n]['label']}: failed: {results[n]['failed']}")


def target_table(lines, results):
    """Starts a markdown table with a column per measured Strata target in `results` (a section's results by
    target name); answers row(title, get), which adds a row of get(target's results) — '—' where that fails."""
    names = [n for n in STRATA if n in results]
    lines.append("| measurement | " + " | ".join(TARGETS[n]["label"] for n in names) + " |")
    lines.append("|---|" + "---:|" * len(names))

    def row(title, get):
        cells = []
        for n in names:
            try:
                cells.append(get(results[n]))
            except (KeyError, TypeError, IndexError):
                cells.append("—")
        lines.append(f"| {title} | " + " | ".join(cells) + " |")
    return row


def module_main(doc, measure, markdown, load, **commands):
    """The command line of a scenario module (feed, replica, scale-out): `measure`, `markdown`
    (its section of latest.md from its results), or one of `commands`, each called with the
    remaining arguments; anything else prints the module's doc and exits 2."""
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "measure":
        measure()
    elif command == "markdown":
        print("\n".join(markdown(load())))
    elif command in commands:
        commands[command](sys.argv[2:])
    else:
        print(doc)
        sys.exit(2)
