import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StrataCore

/// How far a request's answer has arrived.
public struct DataTableProgress: Sendable, Hashable {
    /// Bytes of the answer received so far.
    public var completedBytes: Int64
    /// The answer's announced length, when the server gave one (streamed tables have none).
    public var expectedBytes: Int64?

    public init(completedBytes: Int64, expectedBytes: Int64?) {
        self.completedBytes = completedBytes
        self.expectedBytes = expectedBytes
    }

    /// Between 0 and 1 when the length is known.
    public var fractionCompleted: Double? {
        guard let expectedBytes, expectedBytes > 0 else { return nil }
        return min(1, Double(completedBytes) / Double(expectedBytes))
    }
}

/// One exchange the adapter makes: a method, a path below the service root, a JSON body.
struct DataTableHTTPRequest: Sendable {
    var method: String
    var path: String
    var body: [UInt8]?
}

struct DataTableHTTPResponse: Sendable {
    var status: Int
    var body: [UInt8]
}

/// What carries the adapter's requests. The adapter needs only this much of a connection, so the
/// connection layer can change under it without the data table API changing.
protocol DataTableTransport: Sendable {
    func send(_ request: DataTableHTTPRequest, progress: (@Sendable (DataTableProgress) -> Void)?) async throws(DataTableError) -> DataTableHTTPResponse
}

/// A transport over URLSession to a service root URL.
struct URLSessionDataTableTransport: DataTableTransport {
    let serviceRoot: URL
    let session: URLSession
    let headers: [String: String]

    func send(_ request: DataTableHTTPRequest, progress: (@Sendable (DataTableProgress) -> Void)?) async throws(DataTableError) -> DataTableHTTPResponse {
        guard let url = URL(string: request.path, relativeTo: serviceRoot)?.absoluteURL else {
            throw DataTableError(.invalidOperation, "\(request.path) is not a valid path below \(serviceRoot.absoluteString).")
        }
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 120)
        urlRequest.httpMethod = request.method
        urlRequest.setValue("application/json", forHTTPHeaderField: "Accept")
        for (name, value) in headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if let body = request.body {
            urlRequest.httpBody = Data(body)
            urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let box = CancellationBox()
        let session = self.session
        let outcome: Result<(Data, HTTPURLResponse), DataTableError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let task = session.dataTask(with: urlRequest) { data, response, error in
                    if let error {
                        let cancelled = (error as NSError).code == NSURLErrorCancelled
                        continuation.resume(returning: .failure(DataTableError(cancelled ? .cancelled : .transport,
                                                                               cancelled ? "The request was cancelled." : error.localizedDescription)))
                    } else if let http = response as? HTTPURLResponse {
                        continuation.resume(returning: .success((data ?? Data(), http)))
                    } else {
                        continuation.resume(returning: .failure(DataTableError(.invalidResponse, "The answer is not an HTTP response.")))
                    }
                }
                box.attach(task)
            }
        } onCancel: {
            box.cancel()
        }
        switch outcome {
        case .failure(let error):
            throw error
        case .success(let (data, response)):
            let expected = response.expectedContentLength > 0 ? response.expectedContentLength : nil
            progress?(DataTableProgress(completedBytes: Int64(data.count), expectedBytes: expected ?? Int64(data.count)))
            return DataTableHTTPResponse(status: response.statusCode, body: Array(data))
        }
    }

}

/// Hands a URLSession task from the awaiting task to a cancellation handler that may run first,
/// at the same time, or later.
///
/// `@unchecked Sendable`: its two fields are read and written only under `lock`. URLSession tasks
/// may be resumed and cancelled from any thread (swift-corelibs-foundation does not mark them
/// `Sendable`, hence the manual proof here).
final class CancellationBox: @unchecked Sendable {
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var cancelled = false

    /// Starts the task, or cancels it at once when cancellation came first.
    func attach(_ task: URLSessionDataTask) {
        let cancelNow = lock.withLock {
            self.task = task
            return cancelled
        }
        task.resume()
        if cancelNow { task.cancel() }
    }

    func cancel() {
        let task = lock.withLock {
            cancelled = true
            return self.task
        }
        task?.cancel()
    }
}
