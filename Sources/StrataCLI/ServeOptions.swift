import ArgumentParser
import StrataCore
import StrataServer

/// `strata serve`'s options, bound to ArgumentParser. Each property takes its flag's name and
/// help from its row in ``table`` (`ServeOptions+Table.swift`), which also reads the environment
/// variable when the flag is not given, checks the value, and applies it.
struct ServeOptions: ParsableArguments {
    @Flag(name: Self.demoOption.name, help: Self.demoOption.help) var demo = false
    @Option(name: Self.host.name, help: Self.host.help) var host: String?
    @Option(name: Self.port.name, help: Self.port.help) var port: Int?
    @Option(name: Self.data.name, help: Self.data.help) var data: String?
    @Option(name: Self.database.name, help: Self.database.help) var database: String?
    @Option(name: Self.systemDatabase.name, help: Self.systemDatabase.help) var systemDatabase: String?
    @Option(name: Self.databaseConnections.name, help: Self.databaseConnections.help) var databaseConnections: Int?
    @Option(name: Self.readReplica.name, help: Self.readReplica.help) var readReplica: [String] = []
    @Option(name: Self.maxReplicaLag.name, help: Self.maxReplicaLag.help) var maxReplicaLag: String?
    @Option(name: Self.eventLoops.name, help: Self.eventLoops.help) var eventLoops: Int?
    @Option(name: Self.publicURL.name, help: Self.publicURL.help) var publicURL: String?
    @Option(name: Self.pageSize.name, help: Self.pageSize.help) var pageSize: Int?
    @Option(name: Self.maxBodySize.name, help: Self.maxBodySize.help) var maxBodySize: Int?
    @Option(name: Self.maxBlobSize.name, help: Self.maxBlobSize.help) var maxBlobSize: Int64?
    @Option(name: Self.logLevel.name, help: Self.logLevel.help) var logLevel: String?
    @Option(name: Self.tokenLifetime.name, help: Self.tokenLifetime.help) var tokenLifetime: Int?
    @Option(name: Self.tokenAlgorithm.name, help: Self.tokenAlgorithm.help) var tokenAlgorithm: String?
    @Option(name: Self.keySecretFile.name, help: Self.keySecretFile.help) var keySecretFile: String?
    @Option(name: Self.maxTop.name, help: Self.maxTop.help) var maxTop: Int?
    @Option(name: Self.maxQueryLength.name, help: Self.maxQueryLength.help) var maxQueryLength: Int?
    @Option(name: Self.maxFilterDepth.name, help: Self.maxFilterDepth.help) var maxFilterDepth: Int?
    @Option(name: Self.maxFilterNodes.name, help: Self.maxFilterNodes.help) var maxFilterNodes: Int?
    @Option(name: Self.maxExpandDepth.name, help: Self.maxExpandDepth.help) var maxExpandDepth: Int?
    @Option(name: Self.maxExpandWidth.name, help: Self.maxExpandWidth.help) var maxExpandWidth: Int?
    @Option(name: Self.maxExpandedEntities.name, help: Self.maxExpandedEntities.help) var maxExpandedEntities: Int?
    @Option(name: Self.statementTimeout.name, help: Self.statementTimeout.help) var statementTimeout: String?
    @Option(name: Self.maxQueriesPerCaller.name, help: Self.maxQueriesPerCaller.help) var maxQueriesPerCaller: Int?
    @Option(name: Self.sqlCrossJoinLimit.name, help: Self.sqlCrossJoinLimit.help) var sqlCrossJoinLimit: Int?
    @Option(name: Self.maxBufferedResponse.name, help: Self.maxBufferedResponse.help) var maxBufferedResponse: Int?
    @Option(name: Self.headerTimeout.name, help: Self.headerTimeout.help) var headerTimeout: String?
    @Option(name: Self.idleTimeout.name, help: Self.idleTimeout.help) var idleTimeout: String?
    @Option(name: Self.sendTimeout.name, help: Self.sendTimeout.help) var sendTimeout: String?
    @Option(name: Self.minBodyRate.name, help: Self.minBodyRate.help) var minBodyRate: Int?
    @Option(name: Self.maxConnections.name, help: Self.maxConnections.help) var maxConnections: Int?
    @Option(name: Self.trustedProxy.name, help: Self.trustedProxy.help) var trustedProxy: [String] = []
    @Option(name: Self.metricsAccess.name, help: Self.metricsAccess.help) var metricsAccess: String?
    @Option(name: Self.shutdownGrace.name, help: Self.shutdownGrace.help) var shutdownGrace: String?
    @Option(name: Self.changeRetention.name, help: Self.changeRetention.help) var changeRetention: String?

    /// The server's configuration from these options, and the environment for those not given.
    func setup(environment: [String: String]) throws -> ServeSetup {
        var setup = ServeSetup()
        for row in Self.table {
            try row.resolve(self, environment: environment, into: &setup)
        }
        return setup
    }
}
