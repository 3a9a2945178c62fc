import StrataServer
import StrataIdentity

/// The demo's accounts and access rules, created once with the demo services (issue 6): `cardealer`
/// and `speakeasy` readable by anyone, `hockey` for signed-in readers, and an `editor` account
/// whose random password is announced once (on standard output, never in the log).
struct DemoAccounts {
    static let step = "demo.accounts"
    static let editor = ProvisionedAccount(username: "editor", roles: [RoleAssignment(role: BuiltInRole.editor.rawValue)])

    func provision(_ target: ProvisioningTarget) async throws {
        let created = try await target.establishAccess(
            once: Self.step, anonymous: [("cardealer", .read), ("speakeasy", .read), ("hockey", .none)], accounts: [Self.editor])
        for (account, password) in created {
            target.announce("""
                Demo account created: user "\(account.username)", password "\(password)" (role editor).
                This is the only time the password is shown; change it with `strata user passwd \(account.username) --password-stdin`.
                """)
        }
    }
}
