/// Work that runs once per process, however many callers ask for it at the same time: the first
/// caller starts it, and every caller, the first included, awaits that one task.
///
/// An actor that checks a "done" flag, awaits the work and then sets the flag is not enough: the
/// await lets a second caller in, which starts the work again (the OpenID Connect provider's
/// installer once replaced its virtualenv under a test that was using it that way). A failure is
/// not remembered, so the next caller tries again and sees its own error.
actor OnceInFlight {
    private let work: @Sendable () async throws -> Void
    private var running: Task<Void, any Error>?
    private var succeeded = false

    init(_ work: @escaping @Sendable () async throws -> Void) {
        self.work = work
    }

    func run() async throws {
        if succeeded { return }
        let task = running ?? Task { try await work() }
        running = task
        do {
            try await task.value
            succeeded = true
        } catch {
            if running == task { running = nil }
            throw error
        }
    }
}
