import HTTPTypes
import StrataCore

/// OData 4.01's JSON batch format: `{"requests":[{"id","method","url","headers","body",
/// "atomicityGroup","dependsOn"},…]}`. Requests of one atomicity group are adjacent and become one
/// change set (one transaction); `dependsOn` names earlier requests or groups; a request's id is
/// its Content-ID, so `$1/PersonCar` refers to what request `1` created.
extension BatchRequest {
    package static func parseJSON(body: [UInt8]) throws(ODataError) -> BatchRequest {
        let json: JSONValue
        do {
            json = try JSONValue.parse(body, maximumDepth: 256)
        } catch {
            throw .badRequest("The JSON $batch body is not valid JSON: \(error.description).")
        }
        guard case .array(let requests)? = json["requests"] else {
            throw .badRequest("A JSON $batch body is an object with a \"requests\" array: {\"requests\":[{\"id\":\"1\",\"method\":\"get\",\"url\":\"Person(1)\"}]}.")
        }
        guard requests.count <= maximumOperations else {
            throw .badRequest("The batch holds more than \(maximumOperations) operations; split it.")
        }
        var items: [Item] = []
        var ids = Set<String>()
        var groups = Set<String>()
        var openGroup: (name: String, operations: [BatchOperationRequest])?
        func closeGroup() {
            if let group = openGroup { items.append(.changeSet(group.operations)) }
            openGroup = nil
        }
        for (index, request) in requests.enumerated() {
            let location = "request \(index + 1) of the batch"
            let operation = try BatchOperationRequest.parseJSON(request, where: location)
            let id = operation.contentID ?? ""
            guard !groups.contains(id), ids.insert(id).inserted else {
                throw .badRequest("The id '\(id.prefix(60))' of the \(location) is used by an earlier request or atomicity group; give each its own.")
            }
            for dependency in operation.dependsOn where !ids.contains(dependency) && !groups.contains(dependency) || dependency == id {
                throw .badRequest("The \(location) depends on '\(dependency.prefix(60))', which is no earlier request or atomicity group of the batch.")
            }
            let group = request["atomicityGroup"]?.stringValue
            if group != openGroup?.name { closeGroup() }
            guard let group else {
                items.append(.operation(operation))
                continue
            }
            if openGroup == nil {
                guard groups.insert(group).inserted, !ids.contains(group) else {
                    throw .badRequest("The atomicity group '\(group.prefix(60))' of the \(location) was used before, or is a request's id; the requests of a group are adjacent.")
                }
                openGroup = (group, [])
            }
            openGroup?.operations.append(operation)
        }
        closeGroup()
        return BatchRequest(items: items, groups: groups)
    }
}

extension BatchOperationRequest {
    static func parseJSON(_ json: JSONValue, where location: String) throws(ODataError) -> BatchOperationRequest {
        guard case .object(let object) = json else { throw .badRequest("The \(location) must be a JSON object.") }
        guard let id = object["id"]?.stringValue, !id.isEmpty else {
            throw .badRequest("The \(location) has no \"id\"; every request of a JSON batch names itself.")
        }
        guard let methodName = object["method"]?.stringValue, let method = HTTPRequest.Method(methodName.uppercased()) else {
            throw .badRequest("The \(location) has no \"method\" such as \"get\", \"post\", \"patch\" or \"delete\".")
        }
        guard let url = object["url"]?.stringValue, !url.isEmpty else {
            throw .badRequest("The \(location) has no \"url\"; give it relative to the service root, as in \"Person(1)\".")
        }
        var headers = HTTPFields()
        if let given = object["headers"] {
            guard case .object(let fields) = given else { throw .badRequest("The \"headers\" of the \(location) must be an object.") }
            for (name, value) in fields {
                guard let field = HTTPField.Name(name), let text = value.stringValue else {
                    throw .badRequest("The header '\(name.prefix(60))' of the \(location) must have a valid name and a string value.")
                }
                headers.append(HTTPField(name: field, value: text))
            }
        }
        var body: [UInt8] = []
        if let given = object["body"], given != .null {
            var writer = JSONWriter()
            writer.value(given)
            body = writer.bytes
            if headers[.contentType] == nil { headers[.contentType] = "application/json" }
        }
        var dependsOn: [String] = []
        if let given = object["dependsOn"] {
            guard case .array(let names) = given, names.allSatisfy({ $0.stringValue != nil }) else {
                throw .badRequest("The \"dependsOn\" of the \(location) must be an array of request ids.")
            }
            dependsOn = names.compactMap(\.stringValue)
        }
        return BatchOperationRequest(method: method, target: url, headers: headers, body: body, contentID: id, dependsOn: dependsOn,
                                     group: object["atomicityGroup"]?.stringValue)
    }
}
