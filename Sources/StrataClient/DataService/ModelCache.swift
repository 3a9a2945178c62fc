import StrataCore

/// The service's model, read from `$metadata` the first time a V4 answer needs it and kept for the
/// life of the ``DataService`` (its copies share it). A model that cannot be read is not asked
/// for again; entities then go without the ids the model would have given them.
actor ModelCache {
    private var loading: Task<ServiceModel?, Never>?

    /// Keeps a model read by ``DataService/model()``, unless one is already kept or being read.
    func remember(_ model: ServiceModel) {
        if loading == nil { loading = Task { model } }
    }

    func model(_ load: @escaping @Sendable () async -> ServiceModel?) async -> ServiceModel? {
        if let loading { return await loading.value }
        let task = Task { await load() }
        loading = task
        return await task.value
    }
}
