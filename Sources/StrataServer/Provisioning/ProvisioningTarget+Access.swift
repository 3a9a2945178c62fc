import Foundation
import StrataCore
import StrataSQL
import StrataIdentity

/// An account a provisioner creates, with a random password.
package struct ProvisionedAccount: Sendable {
    package var username: String
    package var roles: [RoleAssignment]

    package init(username: String, roles: [RoleAssignment]) {
        self.username = username
        self.roles = roles
    }
}

extension ProvisioningTarget {
    /// Sets anonymous access and creates accounts, once for the life of the data: a step named
    /// `step` is recorded in the system database with them, in one transaction, and never runs
    /// again, so that access changed later is not set back at the next start. An account whose
    /// name exists already is left as it is.
    ///
    /// Answers the accounts created and their random passwords, for the provisioner to show with
    /// ``announce(_:)``; empty when the step ran before or the server has no authentication.
    package func establishAccess(
        once step: String, anonymous: [(service: String, access: AnonymousAccess)], accounts wanted: [ProvisionedAccount]
    ) async throws -> [(account: ProvisionedAccount, password: String)] {
        guard let accounts else { return [] }
        let store = accounts.store
        guard try await store.state(step) == nil else { return [] }
        var candidates: [(account: ProvisionedAccount, password: String, hash: String)] = []
        for account in wanted {
            let password = RandomSecret.password()
            candidates.append((account, password, try await accounts.hasher.hash(password)))
        }
        let seconds = AuthStore.seconds(accounts.now())
        let prepared = candidates.map { (username: $0.account.username, roles: $0.account.roles, hash: $0.hash) }
        let created = try await store.write { connection -> [String] in
            for (service, access) in anonymous {
                try await store.setAnonymousAccess(service, access, connection)
            }
            var created: [String] = []
            for account in prepared
            where try await store.insertAccount(account.username, passwordHash: account.hash, roles: account.roles, createdAt: seconds, connection) {
                created.append(account.username)
            }
            try await store.setState(step, String(seconds), connection)
            return created
        }
        return candidates.filter { created.contains($0.account.username) }.map { (account: $0.account, password: $0.password) }
    }

    /// Shows a message to whoever started the server, where ``AuthSettings/announce`` says (standard
    /// output by default, never the log): for passwords shown once.
    package func announce(_ text: String) {
        accounts?.announce(text)
    }
}
