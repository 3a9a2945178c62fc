"""Datasette as `datasette serve` runs it, without uvicorn's per-request access log.

    python datasette_server.py FILE.sqlite PORT

Strata runs with --log-level error in the benchmarks (no line per request); Datasette's `serve` has no
switch for uvicorn's access log, so this starts the same ASGI app through uvicorn with access_log off.
Settings: max_returned_rows 5000 (the $expand scenario's flat join has about 2,000 rows; every other
request names its page size), sql_time_limit_ms 30000, suggest_facets and allow_facet off.
"""
import sys

import uvicorn
from datasette.app import Datasette

path, port = sys.argv[1], int(sys.argv[2])
datasette = Datasette(
    [path],
    settings={"max_returned_rows": 5000, "sql_time_limit_ms": 30000, "suggest_facets": False, "allow_facet": False},
)
uvicorn.run(datasette.app(), host="127.0.0.1", port=port, log_level="warning", access_log=False, lifespan="on")
