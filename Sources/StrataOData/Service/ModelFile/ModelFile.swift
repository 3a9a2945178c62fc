import StrataCore

/// A service's model file: what a user changes about how the service's catalog is served.
///
/// Strata infers a model from the catalog (``ModelBuilder``). An app written against an existing
/// OData service expects that service's names, some columns must not be published, and a view has
/// neither a primary key nor foreign keys for Strata to find. The model file, `<service>.model.yaml`
/// in the data directory, says so: it is read whenever the service is loaded (at start, and on
/// `strata service reload`), checked against the catalog, and applied to it before the model is
/// built. Every entry names database objects by their database names, so that a rename in the file
/// never changes what it refers to. `strata service model NAME` prints the model being served in
/// this form. The format is described in docs/MODEL-FILES.md.
///
/// Each value keeps the line it was read from: an error names the file, the line and what to fix.
package struct ModelFile: Sendable, Equatable {
    /// Where the file was read from, for messages.
    package var path: String
    var namespace: Entry<String>?
    var container: Entry<String>?
    /// The highest OData version the service answers with, whatever the client asks for: 1.0
    /// writes collections as bare arrays, as OData 1.0 clients expect.
    var maxProtocolVersion: Entry<ODataVersion>?
    /// The OData version of requests that name none (the service setting `--odata-version`, which
    /// the file overrides when it says).
    var odataVersion: Entry<ODataVersion>?
    /// Whether clients may give values for keys the database generates (the service setting
    /// `--allow-client-keys`, which the file overrides when it says).
    var allowClientKeys: Entry<Bool>?
    /// `track: all`: every table's changes are captured (docs/design/CHANGE-FEED.md §1).
    package var trackAll: Entry<Bool>?
    package var tables: [Table] = []

    package init(path: String, namespace: Entry<String>? = nil, container: Entry<String>? = nil, maxProtocolVersion: Entry<ODataVersion>? = nil, odataVersion: Entry<ODataVersion>? = nil, allowClientKeys: Entry<Bool>? = nil, trackAll: Entry<Bool>? = nil, tables: [Table] = []) {
        self.path = path
        self.namespace = namespace
        self.container = container
        self.maxProtocolVersion = maxProtocolVersion
        self.odataVersion = odataVersion
        self.allowClientKeys = allowClientKeys
        self.trackAll = trackAll
        self.tables = tables
    }

    /// A value and the line it is on.
    package struct Entry<Value: Sendable & Equatable>: Sendable, Equatable {
        var value: Value
        package var line: Int

        package init(value: Value, line: Int) {
            self.value = value
            self.line = line
        }
    }

    /// One table or view, by its database name.
    package struct Table: Sendable, Equatable {
        package var table: String
        var line: Int
        /// The entity set's (and entity type's) name.
        var name: Entry<String>?
        /// The key of a view or of a table without a primary key, as database column names.
        var key: Entry<[String]>?
        /// `track: true`: the table's changes are captured (a table only, not a view).
        package var track: Entry<Bool>?
        var columns: [Column] = []
        var relationships: [Relationship] = []

        package init(table: String, line: Int, name: Entry<String>? = nil, key: Entry<[String]>? = nil, track: Entry<Bool>? = nil, columns: [Column] = [], relationships: [Relationship] = []) {
            self.table = table
            self.line = line
            self.name = name
            self.key = key
            self.track = track
            self.columns = columns
            self.relationships = relationships
        }
    }

    /// One column, by its database name.
    package struct Column: Sendable, Equatable {
        var column: String
        var line: Int
        /// The property's name.
        var name: Entry<String>?
        /// The EDM type the column is served as, instead of the one inferred from its declared type.
        var type: Entry<EDMPrimitiveType>?
        /// Left out of every path: the entity type, `$metadata`, `$tables`, `$sql`, `$changes`.
        var hidden: Entry<Bool>?
        /// Served only to callers holding one of these roles (and to administrators); left out of
        /// every path for everyone else, anonymous callers included.
        var readableBy: Entry<[String]>?
    }

    /// A foreign key: an existing one (to name its navigation properties) or a declared one (for a
    /// view, or a relationship the database does not enforce).
    package struct Relationship: Sendable, Equatable {
        var line: Int
        /// Columns of this table, database names.
        var columns: [String]
        /// The referenced table or view, database name.
        var references: String
        /// Its columns; nil for its key.
        var referencedColumns: [String]?
        /// The navigation property on this side (to the referenced entity).
        var name: Entry<String>?
        /// The navigation property on the referenced side (back to this table's entities).
        var reverseName: Entry<String>?
    }
}

/// A model file that cannot be read or does not fit the catalog: what is wrong, where, and what to do.
public struct ModelFileError: Error, Equatable, CustomStringConvertible {
    public var path: String
    /// The line at fault, when there is one.
    public var line: Int?
    public var message: String

    package init(path: String, line: Int? = nil, message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    public var description: String {
        if let line { return "\(path):\(line): \(message)" }
        return "\(path): \(message)"
    }
}
