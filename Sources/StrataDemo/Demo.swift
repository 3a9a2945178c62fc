import StrataServer

/// Everything `strata serve --demo` creates on first start, in order: the demo services, the
/// speakers' pictures, and the demo's access rules and `editor` account.
struct DemoContent: StartupProvisioner {
    func provision(_ target: ProvisioningTarget) async throws {
        try await DemoServices().provision(target)
        try await DemoBlobs().provision(target)
        try await DemoAccounts().provision(target)
    }
}

extension StrataConfiguration {
    /// Whether the server creates the demo on first start (`strata serve --demo`): the services
    /// `cardealer`, `speakeasy` and `hockey`, the blob container `speakers` with a picture per
    /// speaker, anonymous reads of `cardealer` and `speakeasy`, and the account `editor`, whose
    /// random password is announced once. What exists already is left as it is, so a restart
    /// keeps the changes made since.
    public var demo: Bool {
        get { provisioners.contains { $0 is DemoContent } }
        set {
            provisioners.removeAll { $0 is DemoContent }
            if newValue { provisioners.append(DemoContent()) }
        }
    }
}
