// swift-tools-version:6.1
import PackageDescription

// Micro-benchmarks of Strata's hot paths with ordo-one/benchmark. A package of its own so that the
// Strata package's build stays lean; it depends on Strata by path. Run through benchmarks/run, or:
//   swift package --scratch-path ../.work/build-micro --disable-sandbox benchmark
let package = Package(
    name: "StrataMicro",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Strata", path: "../.."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    ],
    targets: [
        .executableTarget(
            name: "StrataMicro",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "StrataCore", package: "Strata"),
                .product(name: "StrataClient", package: "Strata"),
                .product(name: "StrataServer", package: "Strata"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            path: "Benchmarks/StrataMicro",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
