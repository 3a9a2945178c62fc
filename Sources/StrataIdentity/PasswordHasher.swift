import HummingbirdBcrypt
import NIOPosix
import StrataCore
import StrataStorage
import Synchronization

/// bcrypt hashing and checking, on a thread pool of its own (``BlockingPools/passwords``), so that
/// a few hundred milliseconds of hashing never stall the event loops, the cooperative pool or
/// SQLite's queries.
package struct PasswordHasher: Sendable {
    let cost: UInt8

    /// bcrypt reads at most 72 bytes; longer passwords would be silently cut, so they are refused.
    static let maximumBytes = 72

    package init(cost: Int) throws {
        guard (4...31).contains(cost) else {
            throw ConfigurationError("the password hash cost must be between 4 and 31, not \(cost)")
        }
        self.cost = UInt8(cost)
    }

    /// Starts computing the dummy hash on the password pool, so that it is ready before the first
    /// login for an unknown account (which would otherwise take two hashes' time, once). A server
    /// calls this as it starts; a command that only stores passwords never needs the dummy.
    ///
    /// A login for an unknown account is checked against the dummy, a hash of a random password at
    /// the same cost: it takes as long as a real check, so timing does not tell which accounts exist.
    package func prepare() {
        _ = DummyHash.computation(cost: cost)
    }

    /// Checks that a new password can be stored and checked faithfully.
    static func validate(_ password: String) throws(ODataError) {
        guard !password.isEmpty else { throw .badRequest("The password is empty.") }
        guard password.utf8.count <= maximumBytes else {
            throw .badRequest("The password is longer than \(maximumBytes) bytes (UTF-8), which bcrypt cannot check in full.")
        }
        guard !password.utf8.contains(0) else { throw .badRequest("The password contains a NUL character.") }
    }

    package func hash(_ password: String) async throws -> String {
        try Self.validate(password)
        let cost = self.cost
        return try await BlockingPools.passwords.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    /// Checks a password against a stored hash, or against the dummy hash when there is none.
    /// Passwords bcrypt could not have stored never match.
    func verify(_ password: String, hash: String?) async throws -> Bool {
        let storable = !password.isEmpty && password.utf8.count <= Self.maximumBytes && !password.utf8.contains(0)
        let target = if let hash { hash } else { try await DummyHash.value(cost: cost) }
        let matches = try await BlockingPools.passwords.runIfActive { Bcrypt.verify(password, hash: target) }
        return matches && storable && hash != nil
    }
}

/// ``PasswordHasher``'s dummy hashes, one per cost for the whole process, each computed once on the
/// password pool. Not in the initializer: a hash at the default cost takes a quarter of a second
/// (seconds in a debug build), and the initializer runs on a cooperative thread, whose stall holds up
/// every task of the process. One per process, not per hasher: a process that runs many servers (the
/// tests) would otherwise queue one such hash per server ahead of every login on the pool's threads.
private enum DummyHash {
    private static let computations = Mutex<[UInt8: Task<String, any Error>]>([:])

    static func value(cost: UInt8) async throws -> String {
        try await computation(cost: cost).value
    }

    static func computation(cost: UInt8) -> Task<String, any Error> {
        computations.withLock { computations in
            if let running = computations[cost] { return running }
            let task = Task { try await BlockingPools.passwords.runIfActive { Bcrypt.hash(RandomSecret.token(bytes: 16), cost: cost) } }
            computations[cost] = task
            return task
        }
    }
}
