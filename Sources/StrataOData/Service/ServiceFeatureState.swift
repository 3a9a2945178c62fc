import Synchronization

/// What features keep per loaded service (the `$sql` catalog, the change sets being applied, …):
/// made on first use and dropped with the service, so a reload starts afresh. Features keep their
/// state here, one value per type, so that ``ODataService`` knows none of them.
package final class ServiceFeatureState: Sendable {
    private let values = Mutex<[ObjectIdentifier: any Sendable]>([:])

    package init() {}

    /// This service's value of `type`, made by `make` the first time it is asked for.
    package func value<Value: Sendable>(_ type: Value.Type, make: () -> Value) -> Value {
        values.withLock { values in
            if let value = values[ObjectIdentifier(type)] as? Value { return value }
            let value = make()
            values[ObjectIdentifier(type)] = value
            return value
        }
    }
}
