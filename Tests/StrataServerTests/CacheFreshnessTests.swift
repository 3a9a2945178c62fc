import Foundation
import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// The caches' age follows the listener: long while changes are pushed, the fallback as soon as
/// the listener drops, even for copies loaded while it listened (ages are compared at use).
@Suite("Cache freshness: pushed or polled")
struct CacheFreshnessTests {
    @Test("A snapshot loaded while listening is reloaded within the fallback age once the listener drops")
    func accessSettingsFollowTheListener() async throws {
        let freshness = CacheFreshness(fallback: .milliseconds(50), pushed: .seconds(3600))
        #expect(freshness.maxAge == .milliseconds(50))
        freshness.setListening(true)
        #expect(freshness.maxAge == .seconds(3600))
        let cache = AccessSettingsCache(freshness: freshness) { AccessSettings(anonymous: [:], grants: []) }
        _ = try await cache.settings()
        try await Task.sleep(for: .milliseconds(120))
        _ = try await cache.settings()
        #expect(cache.loadCount == 1, "reloaded while changes were pushed")
        freshness.setListening(false)
        _ = try await cache.settings()
        #expect(cache.loadCount == 2, "a snapshot older than the fallback age was answered from after the listener dropped")
    }

    @Test("A remembered caller verified while listening is forgotten past the fallback age once the listener drops")
    func signInsFollowTheListener() async throws {
        let freshness = CacheFreshness(fallback: .milliseconds(50), pushed: .seconds(3600))
        freshness.setListening(true)
        let cache = SignInCache(freshness: freshness)
        let principal = Principal(subject: "reader", roles: ["reader"], serviceRoles: [:], claims: [:], method: .token)
        cache.remember(principal, expiresAt: .max, for: cache.ticket(for: "token"))
        try await Task.sleep(for: .milliseconds(120))
        #expect(cache.principal(for: "token", now: 0) != nil)
        freshness.setListening(false)
        #expect(cache.principal(for: "token", now: 0) == nil)
    }

    @Test("The pushed age never shortens the fallback")
    func pushedNeverShorter() {
        let freshness = CacheFreshness(fallback: .seconds(5), pushed: .seconds(1))
        freshness.setListening(true)
        #expect(freshness.maxAge == .seconds(5))
    }
}
