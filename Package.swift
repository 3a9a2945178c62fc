// swift-tools-version:6.1
import PackageDescription

let strictSwift: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

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
        // All SQL the server writes: the SQL tree and its renderer, the one dialect and binder, the
        // function table, and client SQL (parse, check, re-emit). Statements are made only here.
        .target(
            name: "StrataSQL",
            dependencies: ["StrataCore"],
            swiftSettings: strictSwift
        ),
        // The Swift client library. Foundation (and FoundationNetworking on Linux), and swift-crypto
        // for the SHA-256 of hosted sign-in's PKCE (CryptoKit itself on Apple platforms).
        .target(
            name: "StrataClient",
            dependencies: ["StrataCore", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSwift
        ),
        .target(
            name: "StrataServer",
            dependencies: [
                "StrataCore",
                "StrataSQL",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                // Strata drives SQLite through its C API (Storage/SQLite: sqlite3_prepare_v3 with
                // persistent statements, step, interrupt, wal_hook, create_function_v2, …) from the
                // module `VaporCSQLite`, and never imports SQLiteNIO: its Swift API prepares every
                // statement anew and hops threads per query, and offers no interrupt or WAL hook.
                // VaporCSQLite is not a product of sqlite-nio, so this product is the only way to
                // depend on it: it brings the same SQLite build (version, compile options, the
                // `sqlite_nio_` symbol prefix) that the server is tested with.
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // HTTP parts as the connection guard observes them behind Hummingbird's decoder.
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                // HTTP/1 itself, before Hummingbird converts it: versions and parse errors.
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                // TLS settings of the control connection to PostgreSQL (outside postgres-nio's pool).
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
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
                .product(name: "Logging", package: "swift-log"),
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
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
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
                "StrataDemo",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift
        ),
    ],
    swiftLanguageModes: [.v6]
)
