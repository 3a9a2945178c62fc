// swift-tools-version:6.1
import PackageDescription

let strictSwift: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// Server-only dependencies are used only when the trait `Server` is on (it is by default). An app
/// that needs only StrataClient turns it off, and SwiftPM then resolves none of them:
/// `.package(url: "…/strata.git", from: "…", traits: [])`. Every use of a server-only product must
/// carry this condition; one without it brings its package back into every app.
let server: TargetDependencyCondition? = .when(traits: ["Server"])

let package = Package(
    name: "Strata",
    // The server's locks are `Synchronization.Mutex`, which needs macOS 15, iOS 18, tvOS 18 and
    // watchOS 11. SwiftPM declares platforms per package, not per target, so the client's minimum is
    // the server's too.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    products: [
        .library(name: "StrataCore", targets: ["StrataCore"]),
        .library(name: "StrataClient", targets: ["StrataClient"]),
        .library(name: "StrataSQL", targets: ["StrataSQL"]),
        .library(name: "StrataServer", targets: ["StrataServer"]),
        .library(name: "StrataDemo", targets: ["StrataDemo"]),
        .executable(name: "strata", targets: ["StrataCLI"]),
    ],
    traits: [
        .default(enabledTraits: ["Server"]),
        .trait(name: "Server", description: "The server, the command line and the demo, with their dependencies (Hummingbird, NIO, PostgreSQL, …). Apps that use only StrataClient turn it off with `traits: []`."),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        // Only its bcrypt module: password hashes.
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // For the SQLite library it vendors, not for its Swift API: see the SQLiteNIO product below.
        .package(url: "https://github.com/vapor/sqlite-nio.git", from: "1.13.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // Services' model files are YAML: comments, and line numbers for every error.
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        // Hosted sign-in's requests to identity providers (discovery, keys, token endpoint).
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    ],
    targets: [
        // The wire: EDM model, OData values and literals, JSON formats, query language, errors.
        // Foundation only, shared by server and client.
        .target(
            name: "StrataCore",
            swiftSettings: strictSwift
        ),
        // The server's SQL layer: the SQL tree and its renderer, the one dialect and binder, the
        // function table, client SQL (parse, check, re-emit), and the `SQL` interpolation type, the
        // only way the server targets write statement text (identifiers from the catalog, values bound).
        .target(
            name: "StrataSQL",
            dependencies: ["StrataCore"],
            swiftSettings: strictSwift
        ),
        // SQLite's C API as Linux has it: Debian's libsqlite3 (apt-get install libsqlite3-dev), found
        // through pkg-config. Apple platforms have it as the system module SQLite3 instead. Not the
        // SQLite that sqlite-nio vendors for the server: that one is a server-only dependency, and
        // its symbols carry the prefix `sqlite_nio_`, so both live in one process (`strata sync`).
        .systemLibrary(
            name: "CStrataSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // The Swift client library. Foundation (and FoundationNetworking on Linux), swift-crypto
        // for the SHA-256 of hosted sign-in's PKCE (CryptoKit itself on Apple platforms), and SQLite
        // for the offline replica's local database (the system's on Apple platforms).
        .target(
            name: "StrataClient",
            dependencies: [
                "StrataCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .target(name: "CStrataSQLite", condition: .when(platforms: [.linux, .android])),
            ],
            swiftSettings: strictSwift
        ),
        // The server, in the order a request meets it. Each target may import only those above it;
        // the compiler refuses the rest (docs/ARCHITECTURE.md draws the graph).
        //
        // Storage: SQLite and PostgreSQL behind one `Database`, catalogs, the change log, sync
        // receipts, and the system database with its migrations. No HTTP.
        .target(
            name: "StrataStorage",
            dependencies: [
                "StrataCore",
                "StrataSQL",
                .product(name: "Logging", package: "swift-log", condition: server),
                // Strata drives SQLite through its C API (sqlite3_prepare_v3 with persistent
                // statements, step, interrupt, wal_hook, create_function_v2, …) from the module
                // `VaporCSQLite`, and never imports SQLiteNIO: its Swift API prepares every statement
                // anew and hops threads per query, and offers no interrupt or WAL hook. VaporCSQLite is
                // not a product of sqlite-nio, so this product is the only way to depend on it: it
                // brings the same SQLite build (version, compile options, the `sqlite_nio_` symbol
                // prefix) that the server is tested with.
                .product(name: "SQLiteNIO", package: "sqlite-nio", condition: server),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: server),
                .product(name: "NIOCore", package: "swift-nio", condition: server),
                .product(name: "NIOPosix", package: "swift-nio", condition: server),
                // TLS settings of the control connection to PostgreSQL (outside postgres-nio's pool).
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: server),
                .product(name: "Crypto", package: "swift-crypto", condition: server),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: server),
            ],
            swiftSettings: strictSwift
        ),
        // Identity: accounts and passwords, tokens and signing keys, throttling, grants, federation,
        // hosted sign-in, and the request context that carries who is calling.
        .target(
            name: "StrataIdentity",
            dependencies: [
                "StrataCore",
                "StrataSQL",
                "StrataStorage",
                .product(name: "Hummingbird", package: "hummingbird", condition: server),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth", condition: server),
                .product(name: "Logging", package: "swift-log", condition: server),
                .product(name: "JWTKit", package: "jwt-kit", condition: server),
                .product(name: "Crypto", package: "swift-crypto", condition: server),
                .product(name: "NIOCore", package: "swift-nio", condition: server),
                .product(name: "NIOPosix", package: "swift-nio", condition: server),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: server),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: server),
                // Hosted sign-in's requests to identity providers (discovery, keys, token endpoint).
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: server),
            ],
            swiftSettings: strictSwift
        ),
        // The OData protocol: services and their models, then parse → authorize → plan → execute →
        // serialize.
        .target(
            name: "StrataOData",
            dependencies: [
                "StrataCore",
                "StrataSQL",
                "StrataStorage",
                "StrataIdentity",
                .product(name: "Hummingbird", package: "hummingbird", condition: server),
                .product(name: "Logging", package: "swift-log", condition: server),
                .product(name: "Crypto", package: "swift-crypto", condition: server),
                .product(name: "NIOCore", package: "swift-nio", condition: server),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: server),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: server),
                // Services' model files are YAML: comments, and line numbers for every error.
                .product(name: "Yams", package: "Yams", condition: server),
            ],
            swiftSettings: strictSwift
        ),
        // Features beside the protocol: blob containers, data tables ($tables, $sql, change sets with
        // sync receipts), and the change feed, which answers in data tables' terms.
        .target(
            name: "StrataBlobs",
            dependencies: [
                "StrataCore",
                "StrataSQL",
                "StrataStorage",
                "StrataIdentity",
                "StrataOData",
                .product(name: "Hummingbird", package: "hummingbird", condition: server),
                .product(name: "Logging", package: "swift-log", condition: server),
                .product(name: "Crypto", package: "swift-crypto", condition: server),
                .product(name: "NIOCore", package: "swift-nio", condition: server),
                .product(name: "NIOPosix", package: "swift-nio", condition: server),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: server),
            ],
            swiftSettings: strictSwift
        ),
        .target(
            name: "StrataDataTables",
            dependencies: [
                "StrataCore",
                "StrataSQL",
                "StrataStorage",
                "StrataIdentity",
                "StrataOData",
                .product(name: "Hummingbird", package: "hummingbird", condition: server),
                .product(name: "Logging", package: "swift-log", condition: server),
                .product(name: "NIOCore", package: "swift-nio", condition: server),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: server),
            ],
            swiftSettings: strictSwift
        ),
        .target(
            name: "StrataFeed",
            dependencies: [
                "StrataCore",
                "StrataSQL",
                "StrataStorage",
                "StrataIdentity",
                "StrataOData",
                "StrataDataTables",
                .product(name: "Hummingbird", package: "hummingbird", condition: server),
                .product(name: "Logging", package: "swift-log", condition: server),
                .product(name: "NIOCore", package: "swift-nio", condition: server),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: server),
            ],
            swiftSettings: strictSwift
        ),
        // The server itself: connections, routing, the runtime that loads and reloads services,
        // administration, provisioning, metrics, and the application that runs it all.
        .target(
            name: "StrataServer",
            dependencies: [
                "StrataCore",
                "StrataSQL",
                "StrataStorage",
                "StrataIdentity",
                "StrataOData",
                "StrataBlobs",
                "StrataDataTables",
                "StrataFeed",
                .product(name: "Hummingbird", package: "hummingbird", condition: server),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: server),
                .product(name: "UnixSignals", package: "swift-service-lifecycle", condition: server),
                .product(name: "Logging", package: "swift-log", condition: server),
                .product(name: "Metrics", package: "swift-metrics", condition: server),
                .product(name: "Prometheus", package: "swift-prometheus", condition: server),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: server),
                .product(name: "NIOCore", package: "swift-nio", condition: server),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: server),
                // HTTP parts as the connection guard observes them behind Hummingbird's decoder.
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras", condition: server),
                // HTTP/1 itself, before Hummingbird converts it: versions and parse errors.
                .product(name: "NIOHTTP1", package: "swift-nio", condition: server),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras", condition: server),
            ],
            // The console's page, style sheet and ES modules, served at /console.
            resources: [.copy("Console/Resources")],
            swiftSettings: strictSwift
        ),
        // What `strata serve --demo` and `strata demo-data` create: the demo services' SQL, their
        // accounts and pictures, and CarDealer at any scale. The server knows none of it; it runs the
        // provisioners a configuration carries.
        .target(
            name: "StrataDemo",
            dependencies: [
                "StrataCore",
                "StrataSQL",
                "StrataServer",
                .product(name: "Logging", package: "swift-log", condition: server),
            ],
            resources: [.copy("SQL")],
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "StrataCLI",
            dependencies: [
                "StrataServer",
                "StrataDemo",
                "StrataClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: server),
            ],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "StrataCoreTests",
            // StrataDemo for its SplitMix64, the seeded generator of the fuzz tests.
            dependencies: ["StrataCore", "StrataDemo"],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "StrataSQLTests",
            // StrataDemo for its SplitMix64, the seeded generator of the fuzz tests.
            dependencies: ["StrataSQL", "StrataDemo"],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "StrataServerTests",
            dependencies: [
                "StrataServer",
                "StrataStorage",
                "StrataIdentity",
                "StrataOData",
                "StrataBlobs",
                "StrataDataTables",
                "StrataFeed",
                "StrataSQL",
                // The demo services are the data of most end-to-end tests.
                "StrataDemo",
                // The data table client tests drive StrataClient against servers on both databases,
                // which only this target can start (its support provisions PostgreSQL).
                "StrataClient",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                // Test helpers share small state across tasks in NIO's locked boxes.
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                // The authentication tests act as an identity provider: they sign RS256/ES256 tokens.
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                // Blob tests check content against its SHA-256.
                .product(name: "Crypto", package: "swift-crypto"),
                // The hosted sign-in tests' scripted browser: redirects followed by hand, cookies kept.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            // Golden files the tests read from the source tree (and rewrite when asked to).
            exclude: ["Fixtures"],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "StrataClientTests",
            dependencies: [
                "StrataClient",
                // The SQL safety article's snippet, compiled with the other articles' (Snippets/).
                "StrataSQL",
                "StrataServer",
                "StrataStorage",
                "StrataIdentity",
                "StrataOData",
                "StrataBlobs",
                "StrataDataTables",
                "StrataFeed",
                "StrataDemo",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift
        ),
        // The command line's own logic: `serve`'s option table, credentials' location.
        .testTarget(
            name: "StrataCLITests",
            dependencies: [
                "StrataCLI",
                "StrataServer",
                "StrataStorage",
                "StrataIdentity",
                "StrataOData",
                "StrataBlobs",
                "StrataDataTables",
                "StrataFeed",
                "StrataDemo",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift
        ),
    ],
    swiftLanguageModes: [.v6]
)
