// Live: the server's readiness and a summary of its metrics, refreshed every few seconds while the
// screen is open, and a set's changes as they are committed (the `$feed` Server-Sent Events stream,
// read with fetch so that the token travels in the Authorization header, which EventSource cannot
// send).
//
// Fragments: #/live (readiness, metrics, services) · #/live/SERVICE (its sets) · #/live/SERVICE/SET
// (the set's changes as they happen).
import { h, show } from "/console/dom.js";
import { APIError, authorization, failure, request } from "/console/api.js";
import { errorBox, link, setCrumbs } from "/console/nav.js";
import { cell } from "/console/sql.js";

const loaded = () => { document.body.dataset.loaded = String(Date.now()); };

/// Seconds between two metrics samples, and how many samples the chart keeps.
const interval = 3000;
const keep = 40;

export default async function liveView(main, route) {
  // Everything this drawing starts — timers, streams — ends when the fragment changes.
  const controller = new AbortController();
  window.addEventListener("hashchange", () => controller.abort(), { once: true });
  const [, service, set] = route.parts;
  if (set !== undefined) return feedView(main, service, set, controller.signal);
  if (service !== undefined) return setsView(main, service);
  return overview(main, controller.signal);
}

// ── Overview ─────────────────────────────────────────────────────────────────────────────────

async function overview(main, signal) {
  setCrumbs([["Live"]]);
  const readiness = h("section", { class: "live-card", "aria-labelledby": "live-ready" });
  const metrics = h("section", { class: "live-card live-metrics", "aria-labelledby": "live-metrics" });
  const services = h("ul", { class: "sets" });
  const updated = h("p", { class: "muted live-updated", "aria-live": "off" });
  show(main,
    h("h1", {}, "Live"),
    h("div", { class: "live-grid" }, readiness, metrics),
    updated,
    h("h2", {}, "Watch a set's changes"),
    services);

  const samples = [];
  let first = true;
  // A caller refused the metrics is not asked again every few seconds: its rights will not change
  // while the screen is open.
  let refused = null;
  async function refresh() {
    const [ready, live, text] = await Promise.all([health("/health/ready", signal), health("/health/live", signal), refused || metricsText(signal)]);
    if (signal.aborted) return;
    drawReadiness(readiness, ready, live);
    if (text instanceof Error) {
      if (text.status === 401 || text.status === 403) refused = text;
      drawMetricsRefused(metrics, text);
    } else {
      samples.push({ time: Date.now(), series: parseMetrics(text) });
      if (samples.length > keep + 1) samples.shift();
      drawMetrics(metrics, samples);
    }
    updated.textContent = `Updated ${new Date().toLocaleTimeString("en-GB")}; refreshes every ${interval / 1000} seconds while this screen is open.`;
    if (first) { first = false; loaded(); }
  }

  const answer = await request("/").catch(() => ({ services: [] }));
  services.replaceChildren(...(answer.services || []).map((entry) =>
    h("li", {}, h("a", { href: link(["live", entry.name]) }, h("span", {}, entry.title || entry.name), h("span", { class: "muted" }, entry.name)))));
  if ((answer.services || []).length === 0) services.replaceWith(h("p", { class: "muted" }, "No service lets this account read."));

  await refresh();
  const timer = setInterval(() => { refresh().catch(() => {}); }, interval);
  signal.addEventListener("abort", () => clearInterval(timer));
}

/// `/health/…` answers JSON also with 503 (degraded, draining).
async function health(path, signal) {
  try {
    const response = await fetch(path, { headers: { Accept: "application/json" }, credentials: "omit", cache: "no-store", signal });
    const body = await response.json().catch(() => ({}));
    return { code: response.status, ...body };
  } catch (error) {
    return { code: 0, status: signal.aborted ? "aborted" : "unreachable", message: error.message };
  }
}

/// The Prometheus text, or the error that explains why this caller may not read it.
async function metricsText(signal) {
  try {
    const response = await fetch("/metrics", { headers: { Accept: "text/plain", ...authorization() }, credentials: "omit", cache: "no-store", signal });
    if (!response.ok) return await failure(response);
    return await response.text();
  } catch (error) {
    return error;
  }
}

function drawReadiness(card, ready, live) {
  const good = ready.code === 200;
  const databases = Object.entries(ready.databases || {});
  card.replaceChildren(
    h("h2", { id: "live-ready" }, "Readiness"),
    h("p", { class: `live-status ${good ? "live-good" : "live-bad"}` },
      h("span", { class: "dot", "aria-hidden": "true" }), good ? "Ready" : `Not ready: ${ready.status || "unreachable"}`,
      h("span", { class: "muted" }, ` (/health/ready answered ${ready.code || "nothing"}; /health/live ${live.code === 200 ? "ok" : live.code || "nothing"})`)),
    databases.length
      ? h("table", { class: "live-databases" },
        h("caption", { class: "muted" }, "Databases"),
        h("tbody", {}, databases.map(([name, state]) =>
          h("tr", {}, h("th", { scope: "row" }, name), h("td", { class: state === "ok" ? "live-good" : "live-bad" }, String(state))))))
      : null);
}

function drawMetricsRefused(card, error) {
  const explained = error.status === 401 || error.status === 403
    ? "The metrics summary needs an account holding the admin or metrics role (or a server started with --metrics-access anonymous)."
    : "The metrics could not be read.";
  card.replaceChildren(h("h2", { id: "live-metrics" }, "Metrics"), errorBox(error), h("p", { class: "muted live-refused" }, explained));
}

// `name{a="x",b="y"} value` lines; comments and blank lines skipped.
export function parseMetrics(text) {
  const series = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const found = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!found) continue;
    const labels = {};
    for (const label of (found[2] || "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[label[1]] = label[2];
    series.push({ name: found[1], labels, value: Number(found[3]) });
  }
  return series;
}

// The console's own polling (/metrics, /health) is left out of the request figures.
const counted = (labels) => !/^(metrics|health)/.test(labels.route || "");

function sum(series, name, where = () => true) {
  return series.filter((entry) => entry.name === name && counted(entry.labels) && where(entry.labels)).reduce((total, entry) => total + entry.value, 0);
}

/// Cumulative counts per upper bound (`le`), over every counted series of the histogram `name`.
function buckets(series, name = "strata_http_request_duration_seconds") {
  const byBound = new Map();
  for (const entry of series) {
    if (entry.name !== `${name}_bucket` || !counted(entry.labels)) continue;
    const bound = entry.labels.le === "+Inf" ? Infinity : Number(entry.labels.le);
    byBound.set(bound, (byBound.get(bound) || 0) + entry.value);
  }
  return [...byBound.entries()].sort((a, b) => a[0] - b[0]);
}

/// Prometheus's histogram_quantile: linear within the bucket that holds the rank.
export function quantile(q, cumulative) {
  const total = cumulative.length ? cumulative[cumulative.length - 1][1] : 0;
  if (!total) return null;
  const rank = q * total;
  let lower = 0, below = 0;
  for (const [bound, count] of cumulative) {
    if (count >= rank) {
      if (bound === Infinity) return lower;
      return lower + (bound - lower) * ((rank - below) / Math.max(count - below, 1e-9));
    }
    lower = bound; below = count;
  }
  return lower;
}

function milliseconds(seconds) {
  if (seconds === null) return "–";
  // The histograms' first bucket ends at 1 ms: below it, interpolation would invent a value.
  if (seconds < 0.001) return "< 1 ms";
  const value = seconds * 1000;
  return value < 10 ? `${value.toFixed(1)} ms` : `${Math.round(value)} ms`;
}

function rate(value) {
  return value < 10 ? value.toFixed(2) : value.toFixed(1);
}

function drawMetrics(card, samples) {
  const last = samples[samples.length - 1];
  const previous = samples.length > 1 ? samples[samples.length - 2] : null;
  const total = (sample) => sum(sample.series, "strata_http_requests_total");
  const errors = (sample) => sum(sample.series, "strata_http_requests_total", (labels) => Number(labels.status) >= 500);
  const refused = (sample) => sum(sample.series, "strata_http_requests_total", (labels) => Number(labels.status) >= 400 && Number(labels.status) < 500);
  const unavailable = sum(last.series, "strata_http_requests_total", (labels) => labels.status === "503");
  const statements = (sample) => sum(sample.series, "strata_sql_statements_total");
  const perSecond = (measure, a, b) => (measure(b) - measure(a)) / Math.max((b.time - a.time) / 1000, 0.001);

  // Latency over the last interval when it had requests, else since the server started.
  const now = buckets(last.series);
  let window = now, scope = "since the server started";
  if (previous) {
    const before = new Map(buckets(previous.series));
    const difference = now.map(([bound, count]) => [bound, count - (before.get(bound) || 0)]);
    if (difference.length && difference[difference.length - 1][1] > 0) { window = difference; scope = `over the last ${Math.round((last.time - previous.time) / 1000)} s`; }
  }
  // strata_db_pool_wait_seconds: how long leases waited for a pooled connection (on SQLite, writes
  // queueing for the one writer show here too).
  const waits = buckets(last.series, "strata_db_pool_wait_seconds");
  let poolText = "n/a", poolNote = "no connection leased yet";
  if (waits.length) {
    const leases = waits[waits.length - 1][1];
    const quick = (waits.find(([bound]) => bound >= 0.001) || [0, leases])[1];
    poolText = `${(leases - quick).toLocaleString("en-US")} over 1 ms`;
    poolNote = `of ${leases.toLocaleString("en-US")} connection leases since start; p99 ${milliseconds(quantile(0.99, waits))}`;
  }

  const tile = (label, value, note) => h("div", { class: "live-tile" }, h("dt", {}, label), h("dd", {}, h("strong", {}, value), note ? h("span", { class: "muted" }, note) : null));
  const points = [];
  for (let index = 1; index < samples.length; index++) {
    points.push({ time: samples[index].time, requests: perSecond(total, samples[index - 1], samples[index]), errors: perSecond(errors, samples[index - 1], samples[index]) });
  }
  card.replaceChildren(
    h("h2", { id: "live-metrics" }, "Metrics"),
    h("dl", { class: "live-tiles" },
      tile("Requests/s", previous ? rate(perSecond(total, previous, last)) : "…", `${total(last).toLocaleString("en-US")} since start`),
      tile("Errors (5xx)", previous ? `${rate(perSecond(errors, previous, last))}/s` : "…", `${errors(last).toLocaleString("en-US")} since start; ${refused(last).toLocaleString("en-US")} refused (4xx)`),
      tile("Latency p50", milliseconds(quantile(0.5, window)), scope),
      tile("Latency p99", milliseconds(quantile(0.99, window)), `p90 ${milliseconds(quantile(0.9, window))}; ${scope}`),
      tile("SQL statements/s", previous ? rate(perSecond(statements, previous, last)) : "…", `${statements(last).toLocaleString("en-US")} since start`),
      tile("Pool waits", poolText, `${poolNote}; ${unavailable.toLocaleString("en-US")} answered 503`)),
    chart(points),
    h("p", { class: "muted live-note" }, "Requests leave out the console's own /metrics and /health polls."));
}

const svgNS = "http://www.w3.org/2000/svg";
function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS(svgNS, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  for (const child of children) element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return element;
}

/// Requests/s over the kept samples as bars, the 5xx part of each in red; the newest on the right.
function chart(points) {
  const width = 800, height = 170, left = 40, right = 4, bottom = 18, top = 10;
  const highest = Math.max(1, ...points.map((point) => point.requests));
  const slot = (width - left - right) / keep;
  const y = (value) => top + (height - top - bottom) * (1 - value / highest);
  const bars = [];
  points.forEach((point, index) => {
    const x = left + slot * (index + keep - points.length) + 1;
    const label = `${rate(point.requests)} requests/s, ${rate(point.errors)} errors/s at ${new Date(point.time).toLocaleTimeString("en-GB")}`;
    bars.push(svg("rect", { x: x.toFixed(1), y: y(point.requests).toFixed(1), width: Math.max(1, slot - 2).toFixed(1), height: (y(0) - y(point.requests)).toFixed(1), class: "requests" },
      svg("title", {}, label)));
    if (point.errors > 0) {
      bars.push(svg("rect", { x: x.toFixed(1), y: y(point.errors).toFixed(1), width: Math.max(1, slot - 2).toFixed(1), height: (y(0) - y(point.errors)).toFixed(1), class: "errors" }));
    }
  });
  const description = points.length
    ? `Requests per second over the last ${points.length} samples: latest ${rate(points[points.length - 1].requests)}, highest ${rate(highest)}.`
    : "The chart starts with the second sample.";
  return h("figure", { class: "live-chart" },
    svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": description },
      svg("line", { x1: left, y1: y(highest), x2: width - right, y2: y(highest), class: "grid" }),
      svg("line", { x1: left, y1: y(highest / 2), x2: width - right, y2: y(highest / 2), class: "grid" }),
      svg("text", { x: left - 4, y: y(highest) + 4, "text-anchor": "end" }, rate(highest)),
      svg("text", { x: left - 4, y: y(highest / 2) + 4, "text-anchor": "end" }, rate(highest / 2)),
      svg("text", { x: left - 4, y: y(0) + 4, "text-anchor": "end" }, "0"),
      svg("text", { x: width - right, y: height - 3, "text-anchor": "end" }, "now"),
      svg("text", { x: left, y: height - 3 }, `−${Math.round(keep * interval / 1000)} s`),
      svg("g", {}, ...bars),
      svg("line", { x1: left, y1: y(0), x2: width - right, y2: y(0), class: "axis" })),
    h("figcaption", {}, h("span", { class: "key requests" }, "requests/s"), " ", h("span", { class: "key errors" }, "5xx/s"),
      h("span", { class: "muted" }, ` · one bar per ${interval / 1000} s`)));
}

// ── A service's sets ─────────────────────────────────────────────────────────────────────────

async function setsView(main, service) {
  setCrumbs([["Live", "#/live"], [service]]);
  const document_ = await request(`/${encodeURIComponent(service)}/`);
  const sets = (document_.value || []).filter((entry) => (entry.kind || "EntitySet") === "EntitySet");
  show(main,
    h("h1", {}, `Live: ${service}`),
    h("p", { class: "muted" }, "Pick a set to see its inserts, updates and deletes as they are committed (the set must be tracked: docs/FEED.md)."),
    h("ul", { class: "sets" }, sets.map((set) => h("li", {}, h("a", { href: link(["live", service, set.name]) }, set.name)))));
  loaded();
}

// ── A set's changes ──────────────────────────────────────────────────────────────────────────

async function feedView(main, service, set, signal) {
  setCrumbs([["Live", "#/live"], [service, link(["live", service])], [set]]);
  const state = h("p", { class: "live-state", role: "status" }, "Connecting…");
  const head = h("thead");
  const body = h("tbody");
  const empty = h("p", { class: "muted live-empty" }, "No change yet: insert, update or delete a row (here, in another tab, or any other client) and it shows here.");
  const count = h("span", { class: "muted" });
  const clear = h("button", { type: "button", class: "plain", onclick: () => { body.replaceChildren(); changes = 0; count.textContent = ""; empty.hidden = false; } }, "Clear");
  show(main,
    h("h1", {}, `Live: ${set}`),
    h("p", {}, h("a", { href: link(["s", service, set]) }, `Browse ${set}`), " · ", h("a", { href: link(["sql", service], { q: `SELECT *\nFROM ${set}\nLIMIT 20` }) }, "Query with SQL")),
    h("div", { class: "toolbar live-toolbar" }, state, count, clear),
    empty,
    h("div", { class: "scroll live-feed" }, h("table", {}, h("caption", { class: "live-hidden" }, `Changes to ${set}, newest first`), head, body)));

  let fields = null, lastId = null, changes = 0;

  function header(next) {
    fields = next;
    head.replaceChildren(h("tr", {}, h("th", { scope: "col" }, "When"), h("th", { scope: "col" }, "Change"),
      fields.map((field) => h("th", { scope: "col", title: field.type || "" }, field.name))));
  }

  function add(kind, values) {
    empty.hidden = true;
    const cells = fields.map((field, index) => values[index] === undefined ? h("td", {}) : cell(values[index]));
    body.prepend(h("tr", { class: `fresh ${kind}` }, h("td", {}, new Date().toLocaleTimeString("en-GB")), h("td", {}, kind), cells));
    while (body.children.length > 500) body.lastChild.remove();
    changes += 1;
    count.textContent = `${changes} ${changes === 1 ? "change" : "changes"}`;
  }

  function receive(event) {
    if (event.id) lastId = event.id;
    if (event.event === "ready") {
      state.textContent = `Listening since ${new Date().toLocaleTimeString("en-GB")}: changes appear as they are committed.`;
      state.className = "live-state live-good";
      loaded();
    } else if (event.event === "changes") {
      const data = JSON.parse(event.data || "{}");
      for (const table of data.tables || []) {
        if (table.name !== set) continue;
        if (!fields || JSON.stringify(fields.map((f) => f.name)) !== JSON.stringify(table.fields.map((f) => f.name))) header(table.fields);
        const keys = table.fields.map((field, index) => field.key ? index : -1).filter((index) => index >= 0);
        for (const row of table.rows || []) add("changed", row);
        for (const key of table.deleted || []) {
          const values = [];
          keys.forEach((index, position) => { values[index] = key[position]; });
          add("deleted", values);
        }
      }
      loaded();
    } else if (event.event === "gone") {
      throw new APIError(410, messageOf(event.data));
    }
  }

  // Reads the stream until it ends; then connects again after the server's retry, from the last id.
  // Not awaited: the screen is drawn, the stream runs until the fragment changes.
  follow().catch((error) => { if (!signal.aborted) state.after(errorBox(error)); });
  async function follow() {
    let retry = 2000;
    while (!signal.aborted) {
      try {
        const headers = { Accept: "text/event-stream", ...authorization() };
        if (lastId) headers["Last-Event-ID"] = lastId;
        const response = await fetch(`/${encodeURIComponent(service)}/$feed?sets=${encodeURIComponent(set)}`, { headers, credentials: "omit", cache: "no-store", signal });
        if (!response.ok) throw await failure(response);
        await readEvents(response.body, (event) => {
          if (event.retry) retry = event.retry;
          receive(event);
        });
        if (signal.aborted) return;
        state.textContent = "The stream ended; connecting again…";
        state.className = "live-state";
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof APIError && error.status >= 400 && error.status < 500 && error.status !== 408) {
          const why = error.status === 401 ? "Sign in to follow this set."
            : error.status === 403 ? "Your roles do not let you read this set, so its changes are not sent to you."
            : error.status === 410 ? "The stream cannot go on from where it was (tracking restarted or the token expired): reload to start from now."
            : null;
          state.textContent = "Not listening.";
          state.className = "live-state live-bad";
          state.after(errorBox(error), why ? h("p", { class: "muted" }, why) : "");
          loaded();
          return;
        }
        state.textContent = `Disconnected (${error.message}); connecting again…`;
        state.className = "live-state live-bad";
      }
      await new Promise((resolve) => setTimeout(resolve, retry));
    }
  }
}

function messageOf(data) {
  try {
    const error = JSON.parse(data).error;
    return typeof error.message === "string" ? error.message : error.message.value;
  } catch {
    return "The stream cannot go on.";
  }
}

/// Server-Sent Events (WHATWG HTML §9.2): blank-line separated blocks of `field: value` lines;
/// `:` starts a comment; `data` lines join with "\n".
async function readEvents(stream, handle) {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = /\r\n\r\n|\n\n|\r\r/.exec(buffer))) {
      const block = buffer.slice(0, end.index);
      buffer = buffer.slice(end.index + end[0].length);
      const event = { event: "message", data: [], id: null, retry: null };
      for (const line of block.split(/\r\n|\n|\r/)) {
        if (!line || line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let text = colon < 0 ? "" : line.slice(colon + 1);
        if (text.startsWith(" ")) text = text.slice(1);
        if (field === "data") event.data.push(text);
        else if (field === "event") event.event = text;
        else if (field === "id") event.id = text;
        else if (field === "retry" && /^\d+$/.test(text)) event.retry = Number(text);
      }
      if (event.data.length === 0 && event.event === "message" && !event.id) { if (event.retry) handle({ ...event, event: "retry", data: "" }); continue; }
      handle({ ...event, data: event.data.join("\n") });
    }
  }
}
