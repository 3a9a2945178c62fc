import Foundation
import StrataCore

/// Links a create or an update sets to entities that already exist: `Car` to `Car(5)`, or
/// `PersonCar` to several.
///
/// ```swift
/// try await service.set("PersonCar").create(NewLink(note: "second car"), binding: [
///     .to("Person", service.set("Person").key(1)),
///     .to("Car", service.set("Car").key(5)),
/// ])
/// ```
/// In V4 each binding is written as `"Car@odata.bind": "…/Car(5)"` (a to-many one as an array);
/// in V2 as the navigation property holding `{"__metadata": {"uri": "…/Car(5)"}}`.
public struct NavigationBinding: Sendable {
    /// The navigation property, `Car`.
    public var navigationProperty: String
    /// The entities it is linked to, each addressed by key.
    public var targets: [ODataQuery]
    /// Whether the navigation property is to-many, written as an array.
    public var isCollection: Bool

    /// Links a to-one navigation property to one entity.
    public static func to(_ navigationProperty: String, _ target: ODataQuery) -> NavigationBinding {
        NavigationBinding(navigationProperty: navigationProperty, targets: [target], isCollection: false)
    }

    /// Links a to-many navigation property to these entities (beside any it is linked to already).
    public static func to(_ navigationProperty: String, _ targets: [ODataQuery]) -> NavigationBinding {
        NavigationBinding(navigationProperty: navigationProperty, targets: targets, isCollection: true)
    }

    /// Adds the binding to an entity body in the JSON of `version`.
    func add(to object: inout JSONObject, version: ODataVersion) throws(StrataError) {
        var urls: [JSONValue] = []
        for target in targets {
            urls.append(.string(try target.url().absoluteString))
        }
        if version.isV4 {
            object[navigationProperty + "@odata.bind"] = isCollection ? .array(urls) : urls.first ?? .null
        } else {
            let links = urls.map { url -> JSONValue in .object(JSONObject([("__metadata", .object(JSONObject([("uri", url)])))])) }
            object[navigationProperty] = isCollection ? .array(links) : links.first ?? .null
        }
    }
}
