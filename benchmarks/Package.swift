// swift-tools-version:6.1
import PackageDescription

// The benchmarks' own package, apart from Strata's so that Strata's build stays lean. One package and
// one release build folder (benchmarks/.work/build) for the servers benchmarks/run starts:
//   - `strata`, Strata's executable, built from the dependency by path (`swift build --product strata`);
//   - `Ceiling`, a Hummingbird 2 server answering constant bodies: what the HTTP stack alone can do;
//   - `PostgresFloor`, a Hummingbird 2 server doing GET by key with postgres-nio and nothing else: what
//     the HTTP stack and the driver can do with PostgreSQL on the same cores;
//   - `ReplicaBench`, the offline replica's client side (issue 26) against a running `strata serve`,
//     driven by lib/replica.py; it links StrataClient and StrataCore only, as an app would;
//   - `StrataMicro`, micro-benchmarks of Strata's hot paths with ordo-one/benchmark, built by its plugin
//     in a folder of its own (the plugin's build settings differ from `swift build`'s):
//       swift package --scratch-path .work/build-micro --disable-sandbox benchmark
let package = Package(
    name: "StrataBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Strata", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.0"),
    ],
    targets: [
        .executableTarget(
            name: "Ceiling",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Sources/Ceiling"
        ),
        .executableTarget(
            name: "PostgresFloor",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Sources/PostgresFloor"
        ),
        // malloc_trim for ReplicaBench, which Swift's Glibc module does not export.
        .target(name: "ReplicaBenchSystem", path: "Sources/ReplicaBenchSystem"),
        .executableTarget(
            name: "ReplicaBench",
            dependencies: [
                "ReplicaBenchSystem",
                .product(name: "StrataClient", package: "Strata"),
                .product(name: "StrataCore", package: "Strata"),
            ],
            path: "Sources/ReplicaBench"
        ),
        .executableTarget(
            name: "StrataMicro",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "StrataCore", package: "Strata"),
                .product(name: "StrataClient", package: "Strata"),
                .product(name: "StrataServer", package: "Strata"),
                .product(name: "StrataDemo", package: "Strata"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            path: "Benchmarks/StrataMicro",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
