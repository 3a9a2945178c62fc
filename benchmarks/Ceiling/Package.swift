// swift-tools-version:6.1
import PackageDescription

// The ceiling: what Hummingbird 2 alone serves on this machine. It answers each benchmark
// scenario with a constant body the same size as Strata's answer, so the ratio Strata / ceiling is
// the share of the HTTP stack's throughput that Strata keeps. Not part of the Strata package.
let package = Package(
    name: "StrataCeiling",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    ],
    targets: [
        .executableTarget(
            name: "Ceiling",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
