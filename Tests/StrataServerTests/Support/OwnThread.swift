import Foundation

/// Runs `body` on a thread of its own and awaits it: for blocking or long synchronous work in a
/// test (socket I/O, RSA key generation in a debug build), which on one of the two cooperative
/// threads would hold up every other test's tasks (see ``StallWatch``).
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}
