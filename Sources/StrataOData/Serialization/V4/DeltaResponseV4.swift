import HTTPTypes
import Hummingbird
import StrataCore

/// One page of a delta in OData 4.0's JSON delta format: `@odata.context` `…$metadata#Set/$delta`,
/// the changed entities as in any collection, each deleted one as
/// `{"@odata.context":"…$metadata#Set/$deletedEntity","id":"<uri>","reason":"deleted"}`, and
/// `@odata.nextLink` (more of this delta) or `@odata.deltaLink` (the link for the next one).
///
/// The reason is always `deleted`: the change log does not tell a deleted row from one that left
/// the caller's filter, and a client drops the row either way (4.0 lets `changed` stand for "no
/// longer in the set" only when the server knows the entity still exists).
struct DeltaResponseV4 {
    let call: ODataCall

    func response(_ page: DeltaReader.Page, shape: EntityShape, continuation: DeltaResponse.Continuation) -> Response {
        let format = call.jsonFormat
        let serializer = EntitySerializerV4(serviceRoot: call.serviceRoot, format: format)
        let table = page.tables.first ?? DeltaReader.Page.Table()
        var writer = JSONWriter(capacity: 4096 + table.entities.count * 256)
        writer.beginObject()
        if format.metadata != .none {
            writer.key("@odata.context")
            writer.string(call.serviceRoot + "$metadata#" + shape.set.name + "/$delta")
        }
        writer.key("value")
        writer.beginArray()
        for entity in table.entities {
            serializer.write(entity, shape: shape, into: &writer)
        }
        let keyNames = shape.type.keyNames
        for key in table.deleted {
            writer.beginObject()
            writer.key("@odata.context")
            writer.string(call.serviceRoot + ODataDeletedEntity.context(of: shape.set.name))
            writer.key("id")
            writer.string(call.serviceRoot + shape.set.name + KeyPredicate.forKey(names: keyNames, values: key).urlText)
            writer.key("reason")
            writer.string("deleted")
            writer.endObject()
        }
        writer.endArray()
        switch continuation {
        case .next(let link):
            writer.key("@odata.nextLink")
            writer.string(link)
        case .delta(let link):
            writer.key("@odata.deltaLink")
            writer.string(link)
        }
        writer.endObject()
        var headers: HTTPFields = [.contentType: format.contentType, ODataResponse.odataVersion: ODataVersion.v4.headerValue]
        headers[DeltaRequest.preferenceAppliedHeader] = DeltaRequest.trackChanges
        return ODataResponse.body(writer.bytes, headers: headers, headRequest: call.isHead)
    }
}
