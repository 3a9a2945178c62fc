import Foundation
@testable import StrataCore

/// SQLite files made and read by another program than Strata: Python's `sqlite3` module, with its
/// own SQLite library. Fixtures written this way hold exactly what their SQL says, and questions
/// asked this way are answered by SQLite's own functions, not by anything Strata wrote.
enum PythonSQLite {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs a script of statements on the file (creating it) and commits.
    static func execute(_ database: String, _ script: String) throws {
        _ = try run(["import sqlite3, sys", "c = sqlite3.connect(sys.argv[1])", "c.executescript(sys.argv[2])", "c.commit()", "c.close()"],
                    database, script)
    }

    /// The rows of a query, each value as JSON (numbers, strings, null).
    static func query(_ database: String, _ sql: String) throws -> [[JSONValue]] {
        let output = try run(["import sqlite3, sys, json", "c = sqlite3.connect(sys.argv[1])",
                              "print(json.dumps(c.execute(sys.argv[2]).fetchall()))", "c.close()"], database, sql)
        guard case .array(let rows) = try JSONValue.parse(Array(output.utf8)) else { throw Failure(description: "not rows: \(output)") }
        return rows.map { $0.arrayValue ?? [] }
    }

    private static func run(_ lines: [String], _ arguments: String...) throws -> String {
        let result: ChildProcess.Result
        do {
            result = try ChildProcess.run("python3", ["-c", lines.joined(separator: "\n")] + arguments)
        } catch {
            throw Failure(description: "python3 is needed to make the SQLite fixtures: \(error)")
        }
        guard result.status == 0 else {
            throw Failure(description: "python3 failed (\(result.status)): \(result.errors)")
        }
        return result.output
    }
}
