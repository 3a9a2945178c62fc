/// What a request does in a container; rights on containers are granted per action.
public enum BlobAction: String, Sendable, CaseIterable {
    /// List the container, read blobs and their properties (GET, HEAD).
    case read
    /// Upload blobs, new or replacing (PUT).
    case write
    /// Delete blobs (DELETE).
    case delete
}

/// A right of a role on one container (or every container).
public struct ContainerGrant: Sendable, Hashable {
    public var role: String
    /// The container; nil for every container.
    public var container: String?
    public var action: BlobAction

    public init(role: String, container: String?, action: BlobAction) {
        self.role = role
        self.container = container
        self.action = action
    }
}
