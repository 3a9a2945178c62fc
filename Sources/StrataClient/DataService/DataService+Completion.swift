import Foundation
import StrataCore

/// V4's minimal metadata leaves out each entity's id and type; these add them from the model (see
/// ``EntityIdentifier``), so that ETags are tracked and ``Entity/uri`` answers in V4 as in V2.
extension DataService {
    /// A page's entities with their ids and types, when the page is V4 and lacks them.
    func completed(_ page: EntityPage) async -> EntityPage {
        guard page.shape == .v4, let first = page.entities.first, Self.lacksControl(first.json),
              let context = page.context, let identifier = await identifier(),
              let set = identifier.entitySet(context: context) else { return page }
        var page = page
        page.entities = page.entities.map { Entity(json: identifier.complete($0.json, in: set)) }
        return page
    }

    /// A single V4 entity with its id and type; without a model, its id is the URL that read it
    /// when that URL addresses it by key.
    func completed(_ entity: Entity, from response: StrataResponse) async -> Entity {
        guard entity.json["__metadata"] == nil, Self.lacksControl(entity.json) else { return entity }
        if let context = entity.json["@odata.context"]?.stringValue, let identifier = await identifier(),
           let set = identifier.entitySet(context: context) {
            return Entity(json: identifier.complete(entity.json, in: set))
        }
        guard entity.json["@odata.id"] == nil, response.request?.method == .get, response.url.path.hasSuffix(")"),
              var components = URLComponents(url: response.url, resolvingAgainstBaseURL: true) else { return entity }
        components.query = nil
        var json = entity.json
        json["@odata.id"] = components.url.map { .string($0.absoluteString) }
        return Entity(json: json)
    }

    private static func lacksControl(_ object: JSONObject) -> Bool {
        object["__metadata"] == nil && (object["@odata.id"] == nil || object["@odata.type"] == nil)
    }

    private func identifier() async -> EntityIdentifier? {
        let service = self
        guard let model = await models.model({ try? await service.model() }) else { return nil }
        var root = rootURL.absoluteString
        if !root.hasSuffix("/") { root += "/" }
        return URL(string: root).map { EntityIdentifier(model: model, serviceRoot: $0) }
    }
}
