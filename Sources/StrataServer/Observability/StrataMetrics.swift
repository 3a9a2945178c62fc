import CoreMetrics
import Foundation
import Prometheus
import Synchronization
import StrataStorage

/// The metrics one server exposes at `/metrics`, in its own Prometheus registry (not the process-wide
/// `MetricsSystem`, so several servers in one test process count separately).
final class StrataMetrics: Sendable {
    let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    private let sqlStatements: CoreMetrics.Counter
    /// One counter and timer per route, method and status, made on first use: making them asks the
    /// registry under its lock and builds label text, which cost more than the increment itself.
    private let requestSeries = Mutex<[RequestSeriesKey: RequestSeries]>([:])

    private struct RequestSeriesKey: Hashable {
        var route: String
        var method: String
        var status: Int
    }

    private struct RequestSeries {
        var count: CoreMetrics.Counter
        var duration: CoreMetrics.Timer
    }

    init() {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(5), .seconds(10),
        ]
        self.registry = registry
        self.factory = factory
        self.sqlStatements = CoreMetrics.Counter(label: "strata_sql_statements_total", factory: factory)
    }

    /// Records how long each lease waited for a pooled connection: the histogram
    /// `strata_db_pool_wait_seconds` (PostgreSQL's pool; SQLite's readers, scanners and writer).
    var poolWaits: PoolWaitRecorder {
        let timer = CoreMetrics.Timer(label: "strata_db_pool_wait_seconds", factory: factory)
        return PoolWaitRecorder { waited in
            timer.recordNanoseconds(Int64(waited.components.seconds) * 1_000_000_000 + waited.components.attoseconds / 1_000_000_000)
        }
    }

    /// Each standby's state and reads (`--read-replica`): `strata_standby_serving` (1 when it may
    /// serve reads), `strata_standby_lag_bytes` and `strata_standby_lag_seconds` (as last polled),
    /// `strata_standby_reads_total` and `strata_standby_errors_total` (reads it failed, which the
    /// primary served instead), each with the label `standby` (host:port).
    var standbys: StandbyMetrics {
        let series = StandbySeries(factory: factory)
        return StandbyMetrics(
            polled: { standby, serving, bytes, seconds in series.polled(standby, serving, bytes, seconds) },
            read: { standby in series.of(standby).reads.increment() },
            failed: { standby in series.of(standby).errors.increment() })
    }

    /// Counts one SQL statement sent to a database.
    var statementCounter: StatementCounter {
        let counter = sqlStatements
        return .counting { counter.increment() }
    }

    /// Records one HTTP request by route (a low-cardinality name such as `odata.collection`), method and status.
    func recordRequest(route: String, method: String, status: Int, duration: Duration) {
        let key = RequestSeriesKey(route: route, method: method, status: status)
        let series = requestSeries.withLock { known in
            if let series = known[key] { return series }
            let dimensions = [("route", route), ("method", method), ("status", String(status))]
            let series = RequestSeries(
                count: CoreMetrics.Counter(label: "strata_http_requests_total", dimensions: dimensions, factory: factory),
                duration: CoreMetrics.Timer(label: "strata_http_request_duration_seconds", dimensions: dimensions, factory: factory))
            known[key] = series
            return series
        }
        series.count.increment()
        series.duration.recordNanoseconds(Int64(duration.components.seconds) * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }

    /// The Prometheus text exposition of every metric.
    func exposition() -> [UInt8] {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }
}

/// The metrics of each standby, made on first use (as the request series are: making one asks the
/// registry under its lock).
private final class StandbySeries: Sendable {
    struct Series {
        var serving: CoreMetrics.Gauge
        var lagBytes: CoreMetrics.Gauge
        var lagSeconds: CoreMetrics.Gauge
        var reads: CoreMetrics.Counter
        var errors: CoreMetrics.Counter
    }

    private let factory: PrometheusMetricsFactory
    private let known = Mutex<[String: Series]>([:])

    init(factory: PrometheusMetricsFactory) {
        self.factory = factory
    }

    func of(_ standby: String) -> Series {
        known.withLock { known in
            if let series = known[standby] { return series }
            let dimensions = [("standby", standby)]
            let series = Series(
                serving: CoreMetrics.Gauge(label: "strata_standby_serving", dimensions: dimensions, factory: factory),
                lagBytes: CoreMetrics.Gauge(label: "strata_standby_lag_bytes", dimensions: dimensions, factory: factory),
                lagSeconds: CoreMetrics.Gauge(label: "strata_standby_lag_seconds", dimensions: dimensions, factory: factory),
                reads: CoreMetrics.Counter(label: "strata_standby_reads_total", dimensions: dimensions, factory: factory),
                errors: CoreMetrics.Counter(label: "strata_standby_errors_total", dimensions: dimensions, factory: factory))
            known[standby] = series
            return series
        }
    }

    func polled(_ standby: String, _ serving: Bool, _ bytes: UInt64?, _ seconds: Double?) {
        let series = of(standby)
        series.serving.record(serving ? 1 : 0)
        // A standby that is down has no lag to show; -1 says so rather than a stale number.
        series.lagBytes.record(bytes.map(Double.init) ?? -1)
        series.lagSeconds.record(seconds ?? -1)
    }
}
