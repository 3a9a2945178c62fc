import Foundation
import StrataCore

/// The control information of an OData V4 JSON object: the `@odata.…` annotations that say where
/// an entity lives, what type it is and which version of it was read.
///
/// Annotations are members whose name holds an `@`: `@odata.etag` for the object itself,
/// `PersonCar@odata.navigationLink` for one of its properties. No property name contains one.
struct ControlInformation {
    let object: JSONObject

    init(_ object: JSONObject) {
        self.object = object
    }

    /// Whether a member name is control information rather than a property: V2's `__metadata`
    /// and `__deferred`-style names, or any V4 annotation.
    static func isControl(_ name: String) -> Bool {
        name.hasPrefix("__") || name.contains("@")
    }

    /// The value of an annotation of the object itself: `@odata.etag` for `etag`. OData 4.01
    /// services may leave out the `odata.` prefix (`@etag`), so both spellings are read.
    func annotation(_ term: String) -> JSONValue? {
        object["@odata." + term] ?? object["@" + term]
    }

    /// `@odata.id`, `@odata.type` (without its `#`) and `@odata.etag`; nil when none is there.
    var metadata: EntityMetadata? {
        let id = annotation("id")?.stringValue ?? annotation("editLink")?.stringValue
        let type = annotation("type")?.stringValue.map { $0.hasPrefix("#") ? String($0.dropFirst()) : $0 }
        let etag = annotation("etag")?.stringValue
        guard id != nil || type != nil || etag != nil else { return nil }
        return EntityMetadata(uri: id.flatMap(URL.init(string:)), type: type, etag: etag)
    }
}
