// An app writes `import StrataClient` and nothing else: the wire types it meets in the client's API
// (`ODataValue`, `JSONValue`, `QueryExpression` and its `&&`/`||`/`!` operators, `CompactTable`,
// `DataTableDelta`) live in StrataCore, which the server shares. Without this re-export, the
// Getting Started example's `Person.lastName.startsWith("S") && Person.createDate >= someDate`
// would not compile for an app that imports only StrataClient.
@_exported import StrataCore
