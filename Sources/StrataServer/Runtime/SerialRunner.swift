/// Runs jobs one after another, in the order they were asked for: each starts once the one before
/// it has finished, whether it succeeded or failed.
actor SerialRunner {
    private var last: Task<Void, Never>?

    func run<T: Sendable>(_ job: @escaping @Sendable () async throws -> T) async throws -> T {
        let previous = last
        let task = Task { () async throws -> T in
            await previous?.value
            return try await job()
        }
        last = Task { _ = try? await task.value }
        return try await task.value
    }
}
