import HTTPTypes
import Hummingbird
import StrataCore

/// One page of a delta (``DeltaReader/Page``) in OData V2 verbose JSON (V4's: ``DeltaResponseV4``), in the form of Apache
/// Olingo's V2 delta responses (the V2 library SAP contributed): the changed entities as in any
/// collection, each deleted one as `{"@odata.context":"$metadata#Set/$deletedEntity","id":"<uri>"}`
/// in `results`, and `__next` (more of this delta) or `__delta` (the link for the next one).
///
/// No `reason` member in tombstones: Olingo's reader expects exactly these two, and a client drops
/// the row for either reason (gone, or out of what it may read).
package struct DeltaResponse {
    let call: ODataCall

    package init(call: ODataCall) {
        self.call = call
    }

    package enum Continuation {
        case next(String)
        case delta(String)
    }

    package func response(_ page: DeltaReader.Page, shape: EntityShape, continuation: Continuation) -> Response {
        if call.version.isV4 { return DeltaResponseV4(call: call).response(page, shape: shape, continuation: continuation) }
        let serializer = EntitySerializer(serviceRoot: call.serviceRoot, version: call.version)
        let table = page.tables.first ?? DeltaReader.Page.Table()
        var writer = JSONWriter(capacity: 4096 + table.entities.count * 256)
        writer.beginObject()
        writer.key("d")
        writer.beginObject()
        writer.key("results")
        writer.beginArray()
        for entity in table.entities {
            serializer.write(entity, shape: shape, into: &writer)
        }
        let keyNames = shape.type.keyNames
        for key in table.deleted {
            let id = call.serviceRoot + shape.set.name + KeyPredicate.forKey(names: keyNames, values: key).urlText
            ODataDeletedEntity(entitySet: shape.set.name, id: id).write(to: &writer)
        }
        writer.endArray()
        switch continuation {
        case .next(let link):
            writer.key("__next")
            writer.string(link)
        case .delta(let link):
            writer.key(ODataDelta.deltaLinkMember)
            writer.string(link)
        }
        writer.endObject()
        writer.endObject()
        var headers: HTTPFields = [.contentType: ODataResponse.jsonContentType, ODataResponse.versionHeader(call.version): call.version.headerValue]
        headers[DeltaRequest.preferenceAppliedHeader] = DeltaRequest.trackChanges
        return ODataResponse.body(writer.bytes, headers: headers, headRequest: call.isHead)
    }
}
