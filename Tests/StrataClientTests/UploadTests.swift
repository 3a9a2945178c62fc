import Foundation
import Hummingbird
import StrataClient
import Testing

/// Kept apart from the other connection tests because Hummingbird, which serves the upload, has
/// its own `Request` and `Response`.
@Suite("Upload")
struct UploadTests {
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
            let response = try await connection.send(StrataClient.Request(.post, "upload", body: Data(repeating: 7, count: size)),
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

}
