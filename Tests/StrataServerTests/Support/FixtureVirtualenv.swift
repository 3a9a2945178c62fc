import Foundation

/// A pinned Python virtualenv of a test fixture (`Fixtures/NAME/install.sh`, through
/// `Fixtures/python-venv.sh`): `.ci/run` makes it once per machine; a test run without it makes it
/// first (which needs PyPI), once per test process however many tests ask at the same time.
struct FixtureVirtualenv: Sendable {
    /// The fixture's folder, `Tests/StrataServerTests/Fixtures/NAME`.
    let fixture: String
    /// Where the virtualenv lives: the environment variable's value, else a folder under /tmp.
    let path: String
    private let installation: OnceInFlight

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(fixture name: String, environment variable: String, default location: String) {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/\(name)").path
        let path = ProcessInfo.processInfo.environment[variable] ?? location
        self.fixture = fixture
        self.path = path
        installation = OnceInFlight {
            let result = try await ChildProcess.run("/bin/sh", [fixture + "/install.sh", path])
            guard result.status == 0 else {
                throw Failure(description: "Fixtures/\(name)/install.sh failed (\(result.status)): \(result.errors)\(result.output)")
            }
        }
    }

    /// Makes the virtualenv when it is missing.
    func install() async throws {
        try await installation.run()
    }

    /// The virtualenv's Python.
    var python: String { path + "/bin/python" }
}
