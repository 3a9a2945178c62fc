/// Content a server creates in its data when it starts, before it reads its services' catalogs.
///
/// The server knows no content of its own: `strata serve --demo` puts the demo's provisioners
/// (module StrataDemo) into ``StrataConfiguration/provisioners``. A provisioner runs at every start,
/// so it must leave alone what exists already: restarts keep the changes made since.
package protocol StartupProvisioner: Sendable {
    func provision(_ target: ProvisioningTarget) async throws
}
