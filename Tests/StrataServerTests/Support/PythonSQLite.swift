import Foundation
@testable import StrataCore

/// SQLite files made and read by another program than Strata: Python's `sqlite3` module, with its
/// own SQLite library. Fixtures written this way hold exactly what their SQL says, and questions
/// asked this way are answered by SQLite's own functions, not by anything Strata wrote.
///
/// Python runs on a dispatch thread (``ChildProcess/run(_:_:environment:input:directory:)-async``):
/// a test waiting for it must not hold one of the two cooperative threads every other test shares.
enum PythonSQLite {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private static let executeLines = ["import sqlite3, sys", "c = sqlite3.connect(sys.argv[1])", "c.executescript(sys.argv[2])", "c.commit()", "c.close()"]

    /// Runs a script of statements on the file (creating it) and commits.
    static func execute(_ database: String, _ script: String) async throws {
        _ = try await run(executeLines, database, script)
    }

    /// ``execute(_:_:)`` for a step that cannot wait (a server's `configure` closure): it holds its
    /// thread for one Python start.
    static func executeBlocking(_ database: String, _ script: String) throws {
        _ = try checked(Result { try ChildProcess.run("python3", ["-c", executeLines.joined(separator: "\n"), database, script]) })
    }

    /// The rows of a query, each value as JSON (numbers, strings, null).
    static func query(_ database: String, _ sql: String) async throws -> [[JSONValue]] {
        let output = try await run(["import sqlite3, sys, json", "c = sqlite3.connect(sys.argv[1])",
                                    "print(json.dumps(c.execute(sys.argv[2]).fetchall()))", "c.close()"], database, sql)
        guard case .array(let rows) = try JSONValue.parse(Array(output.utf8)) else { throw Failure(description: "not rows: \(output)") }
        return rows.map { $0.arrayValue ?? [] }
    }

    private static func run(_ lines: [String], _ arguments: String...) async throws -> String {
        let outcome: Result<ChildProcess.Result, any Error>
        do {
            outcome = .success(try await ChildProcess.run("python3", ["-c", lines.joined(separator: "\n")] + arguments))
        } catch {
            outcome = .failure(error)
        }
        return try checked(outcome)
    }

    /// Python's output, or why it could not run or failed.
    private static func checked(_ outcome: Result<ChildProcess.Result, any Error>) throws -> String {
        let result: ChildProcess.Result
        do {
            result = try outcome.get()
        } catch {
            throw Failure(description: "python3 is needed to make the SQLite fixtures: \(error)")
        }
        guard result.status == 0 else {
            throw Failure(description: "python3 failed (\(result.status)): \(result.errors)")
        }
        return result.output
    }
}
