import Foundation

/// Where an ``AuthSession`` keeps its tokens between launches.
///
/// Strata ships ``MemoryTokenStore`` (forgotten when the process ends), ``FileTokenStore`` (a file
/// only its owner can read, as the `strata` CLI uses) and, on Apple platforms, `KeychainTokenStore`.
public protocol TokenStore: Sendable {
    /// The stored tokens, nil when there are none.
    func loadTokens() async throws -> Tokens?
    /// Stores `tokens`, or removes the stored tokens when nil.
    func saveTokens(_ tokens: Tokens?) async throws
}

/// Keeps tokens in memory only.
public actor MemoryTokenStore: TokenStore {
    private var tokens: Tokens?

    /// A store holding `tokens` to begin with.
    public init(_ tokens: Tokens? = nil) {
        self.tokens = tokens
    }

    public func loadTokens() -> Tokens? { tokens }
    public func saveTokens(_ tokens: Tokens?) { self.tokens = tokens }
}
