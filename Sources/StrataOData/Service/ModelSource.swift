import Foundation
import StrataStorage

/// Where the model file a service is loaded with comes from: the system database, which every
/// server on it shares, or a file in this server's data directory that is newer than what the
/// database holds.
///
/// The file stays the way a single server is shaped (edit `<data>/NAME.model.yaml`, then
/// `strata service reload`): a file changed after the stored model was stored replaces it once it
/// loads, and every server on the database then applies it. A file older than the stored model
/// (left behind on one server after `strata service model NAME --apply` changed the model for all)
/// is ignored, so a restart never brings an old model back.
package struct ModelSource: Sendable {
    /// The model file's text.
    var text: String
    /// What errors name: the file, or the service's model in the system database.
    var path: String
    /// Set when the text comes from a file that should now be stored for every server.
    var importing: StoredModel?

    /// The label errors use for a model held by the system database.
    package static func storedPath(_ service: String) -> String {
        "\(service).model.yaml (in the system database)"
    }

    /// The source of `service`'s model: the newer of its file in `directory` and its stored
    /// model; nil when it has neither.
    static func resolve(_ service: String, stored: StoredModel?, directory: URL?) throws(ModelFileError) -> ModelSource? {
        let fromStore = stored.map { ModelSource(text: $0.text, path: storedPath(service)) }
        guard let directory else { return fromStore }
        let url = directory.appendingPathComponent("\(service).model.yaml")
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return fromStore }
        let modified = (attributes[.modificationDate] as? Date).map { Int64(($0.timeIntervalSince1970 * 1000).rounded(.down)) } ?? 0
        if let stored, modified <= stored.updatedAt { return fromStore }
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw ModelFileError(path: url.path, line: nil, message: "cannot be read (\(error.localizedDescription)); it must be a UTF-8 text file the server may read.")
        }
        let now = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        let importing = text == stored?.text ? nil : StoredModel(text: text, updatedAt: max(now, modified))
        return ModelSource(text: text, path: url.path, importing: importing)
    }
}
