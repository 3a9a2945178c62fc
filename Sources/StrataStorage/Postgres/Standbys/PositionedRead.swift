import StrataCore

package extension Database {
    /// A read outside a request's own reads that must see at least `position`: on a standby that
    /// has replayed that far when `onStandbys` allows one, else on the primary, as a request's reads
    /// are routed (``ReadPositionScope``). Answers the result and the position it saw — nil where the
    /// database reports none (without standbys), so callers treat nil as "no constraint".
    ///
    /// For reads made while a response body streams, after the request's scope is gone (blob
    /// chunks). Background work that keeps a position across reads (the change feed) binds a
    /// ``ReadPositionScope`` of its own instead.
    func read<T: Sendable>(after position: ReadPosition?, onStandbys: Bool, scanning: Bool = false,
                           _ body: @escaping @Sendable (any DatabaseConnection) async throws -> T) async throws -> (T, ReadPosition?) {
        let scope = ReadPositionScope(caller: position, mayReadStandbys: onStandbys)
        let result = try await ReadPositionScope.$current.withValue(scope) { try await read(scanning: scanning, body) }
        return (result, scope.position)
    }

}
