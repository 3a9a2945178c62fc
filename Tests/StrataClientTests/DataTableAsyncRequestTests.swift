import Foundation
@testable import StrataClient
import StrataCore
import Testing

/// `AsyncRequest` against a scripted transport: unstarted until started, progress, cancellation,
/// and handlers delivered on the right actor.
@Suite struct DataTableAsyncRequestTests {
    /// Answers every request with one table after an optional pause, reporting progress twice.
    struct ScriptedTransport: DataTableTransport {
        let table = CompactTable(name: "T", fields: [DataTableField(name: "id", type: .int32, key: true)], rows: [[.int32(1)], [.int32(2)]])
        let delay: Duration
        let sent: Counter

        func send(_ request: DataTableHTTPRequest, progress: (@Sendable (DataTableProgress) -> Void)?) async throws(DataTableError) -> DataTableHTTPResponse {
            await sent.increment()
            let body = table.jsonBytes
            progress?(DataTableProgress(completedBytes: Int64(body.count / 2), expectedBytes: Int64(body.count)))
            do {
                try await Task.sleep(for: delay)
            } catch {
                throw DataTableError(.cancelled, "cancelled")
            }
            progress?(DataTableProgress(completedBytes: Int64(body.count), expectedBytes: Int64(body.count)))
            return DataTableHTTPResponse(status: 200, body: body)
        }
    }

    actor Counter {
        var count = 0
        func increment() { count += 1 }
    }

    /// An actor that starts requests; handlers without isolation must run on it.
    actor Owner {
        var seen: [String] = []
        func note(_ text: String) { seen.append(text) }

        func run(_ request: AsyncRequest<DataTable>) async -> [String] {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                request.onProgress { progress in
                    self.assumeIsolated { $0.seen.append("progress \(progress.fractionCompleted ?? 0)") }
                }
                request.onCompletion { table in
                    self.assumeIsolated { $0.seen.append("done \(table.rows.count)") }
                    done.resume()
                }
                request.start()
            }
            return seen
        }
    }

    @Test func unstartedUntilStartedThenDeliveredOnTheStartingActor() async throws {
        let counter = Counter()
        let adapter = RemoteDataAdapter(service: "s", transport: ScriptedTransport(delay: .milliseconds(20), sent: counter))
        let request = adapter.tableRequest("T")
        request.context = 42
        try await Task.sleep(for: .milliseconds(30))
        #expect(await counter.count == 0, "a request does nothing until started")
        #expect(request.state == .ready)
        let seen = await Owner().run(request)
        #expect(seen.last == "done 2")
        #expect(await counter.count == 1)
        #expect(request.state == .finished && request.progress?.fractionCompleted == 1)
        #expect(request.context as? Int == 42)
        request.start()
        #expect(try await request.value.rows.count == 2)
        #expect(await counter.count == 1, "a finished request does not run again")
    }

    @Test @MainActor func mainActorHandlers() async throws {
        let adapter = RemoteDataAdapter(service: "s", transport: ScriptedTransport(delay: .zero, sent: Counter()))
        let rows: Int = await withCheckedContinuation { continuation in
            adapter.tableRequest("T")
                .onCompletion { @MainActor table in
                    MainActor.assertIsolated()
                    continuation.resume(returning: table.rows.count)
                }
                .start()
        }
        #expect(rows == 2)
    }

    @Test func cancelStopsTheTransferAndReportsCancelled() async throws {
        let counter = Counter()
        let adapter = RemoteDataAdapter(service: "s", transport: ScriptedTransport(delay: .seconds(30), sent: counter))
        let request = adapter.tableRequest("T")
        let failure: DataTableError = await withCheckedContinuation { continuation in
            request.onFailure { error in continuation.resume(returning: error) }
            request.onCompletion { _ in Issue.record("a cancelled request completed") }
            request.startInBackground()
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
        await #expect(throws: DataTableError.self) { try await never.value }
        #expect(await counter.count == 1, "a request cancelled before it started never sends")
    }
}
