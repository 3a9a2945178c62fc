import Foundation
import Hummingbird
import NIOCore
@testable import StrataClient
import Testing

/// `AsyncRequest` against a scripted server on a loopback socket: unstarted until started,
/// progress as the body arrives, cancellation, and handlers delivered on the main actor.
@Suite struct DataTableAsyncRequestTests {
    static let table = CompactTable(name: "T", fields: [DataTableField(name: "id", type: .int32, key: true)], rows: [[.int32(1)], [.int32(2)]])

    /// Serves `/s/$tables/T`: half the table, a pause of `delay`, the rest; counts the requests.
    static func withScriptedServer<T: Sendable>(delay: Duration, _ body: @Sendable (RemoteDataAdapter, Counter) async throws -> T) async throws -> T {
        let counter = Counter()
        let router = Router()
        router.get("/s/$tables/T") { _, _ -> Hummingbird.Response in
            await counter.increment()
            let bytes = table.jsonBytes
            return Hummingbird.Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody { writer in
                try await writer.write(ByteBuffer(bytes: bytes.prefix(bytes.count / 2)))
                try await Task.sleep(for: delay)
                try await writer.write(ByteBuffer(bytes: bytes.dropFirst(bytes.count / 2)))
                try await writer.finish(nil)
            })
        }
        return try await withRouter(router) { url in
            try await body(RemoteDataAdapter(connection: Connection(baseURL: url), service: "s"), counter)
        }
    }

    actor Counter {
        var count = 0
        func increment() { count += 1 }
    }

    /// What handlers saw, in order; main-actor state, as a screen's would be.
    @MainActor final class Log {
        var seen: [String] = []
    }

    /// An actor that starts requests: its handlers still run on the main actor.
    actor Owner {
        func run(_ request: AsyncRequest<DataTable>) async -> [String] {
            let log = Log()
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                request.onProgress { progress in
                    MainActor.assertIsolated("progress off the main actor")
                    log.seen.append("progress \(progress.completedBytes)")
                }
                request.onCompletion { table in
                    MainActor.assertIsolated("completion off the main actor")
                    log.seen.append("done \(table.rows.count)")
                    done.resume()
                }
                request.start()
            }
            return await log.seen
        }
    }

    @Test func unstartedUntilStartedThenDeliveredOnTheMainActor() async throws {
        try await Self.withScriptedServer(delay: .milliseconds(50)) { adapter, counter in
        let request = adapter.tableRequest("T")
        request.context = 42
        try await Task.sleep(for: .milliseconds(30))
        #expect(await counter.count == 0, "a request does nothing until started")
        #expect(request.state == .ready)
        let seen = await Owner().run(request)
        #expect(seen.last == "done 2")
        #expect(await counter.count == 1)
        #expect(seen.contains { $0.hasPrefix("progress") }, "progress is reported as the body arrives: \(seen)")
        #expect(request.state == .finished && request.progress?.completedBytes == Int64(Self.table.jsonBytes.count))
        #expect(request.context as? Int == 42)
        request.start()
        #expect(try await request.value.rows.count == 2)
        #expect(await counter.count == 1, "a finished request does not run again")
        }
    }

    @Test @MainActor func mainActorHandlers() async throws {
        let rows: Int = try await Self.withScriptedServer(delay: .zero) { adapter, _ in
            await Self.mainActorRows(adapter)
        }
        #expect(rows == 2)
    }

    /// UI-style code: handlers written in a `@MainActor` type, without annotations, touch its
    /// state directly, because handlers are main-actor closures.
    @MainActor final class ViewModel {
        var rows: [DataTableRow] = []
        var progressReports = 0

        func load(_ adapter: RemoteDataAdapter, done: @escaping @MainActor () -> Void) {
            adapter.tableRequest("T")
                .onProgress { _ in
                    MainActor.assertIsolated()
                    self.progressReports += 1
                }
                .onCompletion { table in
                    MainActor.assertIsolated()
                    self.rows = table.rows
                    done()
                }
                .start()
        }
    }

    @MainActor static func mainActorRows(_ adapter: RemoteDataAdapter) async -> Int {
        let model = ViewModel()
        await withCheckedContinuation { continuation in
            model.load(adapter) { continuation.resume() }
        }
        #expect(model.progressReports > 0)
        return model.rows.count
    }

    @Test func cancelStopsTheTransferAndReportsCancelled() async throws {
        try await Self.withScriptedServer(delay: .seconds(3)) { adapter, counter in
        let request = adapter.tableRequest("T")
        let failure: StrataError = await withCheckedContinuation { continuation in
            request.onFailure { error in continuation.resume(returning: error) }
            request.onCompletion { _ in Issue.record("a cancelled request completed") }
            request.start()
            Task {
                while await counter.count == 0 { try? await Task.sleep(for: .milliseconds(5)) }
                request.cancel()
            }
        }
        #expect(failure.kind == .cancelled)
        #expect(request.state == .cancelled)

        let never = adapter.tableRequest("T")
        never.cancel()
        never.start()
        #expect(never.state == .cancelled)
        await #expect(throws: StrataError.self) { try await never.value }
        #expect(await counter.count == 1, "a request cancelled before it started never sends")
        }
    }
}
