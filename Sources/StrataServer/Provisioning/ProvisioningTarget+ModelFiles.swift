import Foundation
import Logging

extension ProvisioningTarget {
    /// Writes a service's model file (`<data directory>/<service>.model.yaml`) unless one is there:
    /// a provisioner's file is where a user starts, and the user's own edits win.
    package func writeModelFile(_ text: String, for service: String) throws {
        guard let modelDirectory else { return }
        let url = modelDirectory.appendingPathComponent("\(service).model.yaml")
        guard !FileManager.default.fileExists(atPath: url.path) else { return }
        try FileManager.default.createDirectory(at: modelDirectory, withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
        logger.info("Wrote the service's model file", metadata: ["service": .string(service), "path": .string(url.path)])
    }
}
