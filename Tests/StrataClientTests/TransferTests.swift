import Foundation
import Hummingbird
import NIOCore
import StrataClient
import Testing

/// Transfers against small local Hummingbird servers; each test starts its own server, scripted
/// to the byte, with Hummingbird's `Request` and `Response` beside StrataClient's types.
@Suite("Transfers")
struct TransferTests {
    @Test("Upload progress reports every byte of a large body, in order")
    func uploadProgress() async throws {
        let router = Router()
        router.post("/upload") { request, _ -> String in
            let body = try await request.body.collect(upTo: 8 << 20)
            return String(body.readableBytes)
        }
        try await withRouter(router) { url in
            let connection = Connection(baseURL: url)
            let recorder = ProgressRecorder()
            let size = 3 << 20
            let response = try await connection.send(StrataRequest(.post, "upload", body: Data(repeating: 7, count: size)),
                                                     progress: { recorder.add($0) })
            #expect(response.text == String(size))
            let uploads = recorder.reports.filter { $0.direction == .upload }
            #expect(uploads.count > 2)
            #expect(zip(uploads, uploads.dropFirst()).allSatisfy { $0.completedBytes < $1.completedBytes })
            #expect(uploads.last?.completedBytes == Int64(size))
            #expect(uploads.last?.fractionCompleted == 1)
            #expect(uploads.allSatisfy { $0.expectedBytes == Int64(size) })
            // Uploading comes before any download progress.
            let directions = recorder.reports.map(\.direction)
            #expect(directions.firstIndex(of: .download).map { $0 > directions.lastIndex(of: .upload)! } == true)
        }
    }


    @Test("The timeout is an idle timeout: a slow response that keeps arriving is not cut off")
    func idleTimeout() async throws {
        let router = Router()
        router.get("/trickle") { _, _ -> Hummingbird.Response in
            Hummingbird.Response(status: .ok, body: ResponseBody { writer in
                // Gaps far below the timeout, so a loaded machine cannot stretch one past it (the first
                // seconds of a full test run on 2 cores starve the cooperative pool for over 10 s).
                for index in 0..<28 {
                    try await Task.sleep(for: .milliseconds(800))
                    try await writer.write(ByteBuffer(string: "chunk \(index)\n"))
                }
                try await writer.finish(nil)
            })
        }
        router.get("/stall") { _, _ -> Hummingbird.Response in
            Hummingbird.Response(status: .ok, body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: "first\n"))
                try await Task.sleep(for: .seconds(30))
                try await writer.finish(nil)
            })
        }
        try await withRouter(router) { url in
            let connection = Connection(baseURL: url, configuration: ConnectionConfiguration(timeout: 20))
            let started = ContinuousClock.now
            let response = try await connection.send(StrataRequest(.get, "trickle"))
            #expect(response.text.split(separator: "\n").count == 28)
            #expect(ContinuousClock.now - started > .seconds(21), "longer than the timeout in total")
            do {
                _ = try await connection.send(StrataRequest(.get, "stall"))
                Issue.record("a stalled response finished")
            } catch let error as StrataError {
                #expect(error.kind == .timedOut)
            }
        }
    }
}
