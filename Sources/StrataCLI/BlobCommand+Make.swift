import ArgumentParser
import StrataClient

extension BlobCommand {
    struct Make: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mk",
            abstract: "Create a container (admin role), or change who may read it.",
            discussion: "strata blob mk albums --public-read")

        @Argument(help: "The container: 3 to 63 lowercase letters, digits or '-'.") var container: String
        @Flag(name: .customLong("public-read"), help: "Let anyone list it and read its blobs.") var publicRead = false
        @OptionGroup var options: BlobServerOptions

        func run() async throws {
            let access: BlobContainerAccess = publicRead ? .publicRead : .private
            try await options.client().createContainer(container, access: access)
            print("The container \(container) is \(access.rawValue).")
        }
    }
}
