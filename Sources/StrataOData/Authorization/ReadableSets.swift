import StrataCore
import StrataIdentity

extension Authorizer {
    /// The entity sets of `model` (the caller's model) that the caller may read, for documents
    /// that describe only what the caller can use (`openapi.json`). A refusal (401, 403) leaves the
    /// set out; any other failure is the request's.
    package func readableSets(of model: ServiceModel) async throws -> Set<String> {
        var readable: Set<String> = []
        for set in model.entitySets {
            do {
                _ = try await authorize(.read, set.name)
                readable.insert(set.name)
            } catch let error as ODataError where error.status == 401 || error.status == 403 {
                continue
            }
        }
        return readable
    }
}
