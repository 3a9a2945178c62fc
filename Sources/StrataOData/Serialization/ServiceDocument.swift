import StrataCore

/// The service document at `/{service}/`: the entity sets a client can address, in JSON or AtomPub XML.
package enum ServiceDocument {
    package static func json(for model: ServiceModel) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("d")
        writer.beginObject()
        writer.key("EntitySets")
        writer.beginArray()
        for set in model.entitySets { writer.string(set.name) }
        writer.endArray()
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }

    /// V4's service document: `{"@odata.context":"…/$metadata","value":[{"name","kind","url"}]}`.
    package static func jsonV4(for model: ServiceModel, serviceRoot: String, format: JSONFormat) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        if format.metadata != .none {
            writer.key("@odata.context")
            writer.string(serviceRoot + "$metadata")
        }
        writer.key("value")
        writer.beginArray()
        for set in model.entitySets {
            writer.beginObject()
            writer.key("name")
            writer.string(set.name)
            writer.key("kind")
            writer.string("EntitySet")
            writer.key("url")
            writer.string(set.name)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    package static func xml(for model: ServiceModel, serviceRoot: String) -> String {
        var xml = XMLWriter()
        xml.start("service", [("xml:base", serviceRoot), ("xmlns:atom", "http://www.w3.org/2005/Atom"),
                              ("xmlns:app", "http://www.w3.org/2007/app"), ("xmlns", "http://www.w3.org/2007/app")])
        xml.start("workspace")
        xml.element("atom:title", text: "Default")
        for set in model.entitySets {
            xml.start("collection", [("href", set.name)])
            xml.element("atom:title", text: set.name)
            xml.end()
        }
        xml.end()
        xml.end()
        return xml.text
    }
}
