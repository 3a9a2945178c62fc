import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
@testable import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// `/auth/authorize` is anonymous and stores a flow: one client address may keep only so many open
/// (``AuthSettings/maxOpenSignInsPerAddress``), so that nobody can make the system database grow
/// without bound. Other addresses are not affected; finished and expired flows free their places.
@Suite("Hosted sign-in: starts per address")
struct SignInStartThrottleTests {
    static func flow(_ number: Int, expiresAt: Int64) -> SignInFlow {
        SignInFlow(provider: "p", service: "hockey", redirectURI: "app:/back", appState: "s\(number)", codeChallenge: "c",
                   nonce: "n", verifier: "v", linkSubject: nil, expiresAt: expiresAt)
    }

    @Test("A full address waits until its oldest flow expires; other addresses and finished flows are counted apart",
          arguments: Backend.allCases)
    func counting(_ backend: Backend) async throws {
        try await AuthAccessSettingsTests.withSystem(backend) { admin in
            let store = admin.store
            let now: Int64 = 1_000_000
            for number in 0 ..< 3 {
                try await store.insertFlow(stateHash: "a\(number)", Self.flow(number, expiresAt: now + 600 + Int64(number)),
                                           client: "192.0.2.1", limit: 3, now: now)
            }
            let refused = await #expect(throws: ThrottledError.self) {
                try await store.insertFlow(stateHash: "a3", Self.flow(3, expiresAt: now + 600), client: "192.0.2.1", limit: 3, now: now)
            }
            // The third newest open flow expires at now + 600: then the address is under its limit.
            #expect(refused?.retryAfter == 601, "\(String(describing: refused))")
            #expect(refused?.odataError.message.contains("Too many sign-ins started from this address") == true)
            #expect(try await store.takeFlow(stateHash: "a3", now: now) == nil, "nothing was stored")

            // Another address has its own count.
            try await store.insertFlow(stateHash: "b0", Self.flow(0, expiresAt: now + 600), client: "192.0.2.2", limit: 3, now: now)

            // A finished flow (the callback took it) frees its place.
            #expect(try await store.takeFlow(stateHash: "a1", now: now) != nil)
            try await store.insertFlow(stateHash: "a4", Self.flow(4, expiresAt: now + 600), client: "192.0.2.1", limit: 3, now: now)
            await #expect(throws: ThrottledError.self) {
                try await store.insertFlow(stateHash: "a5", Self.flow(5, expiresAt: now + 600), client: "192.0.2.1", limit: 3, now: now)
            }

            // Past their lifetime the flows are deleted and the address starts again.
            let later = now + 603
            for number in 6 ..< 9 {
                try await store.insertFlow(stateHash: "a\(number)", Self.flow(number, expiresAt: later + 600), client: "192.0.2.1", limit: 3, now: later)
            }
            #expect(try await store.takeFlow(stateHash: "a0", now: now) == nil, "the expired flow was deleted")
        }
    }

    @Test("Past the limit /auth/authorize answers 429 with Retry-After: an OData error for apps, a page for browsers; the refusal is logged")
    func overHTTP() async throws {
        let provider = try await ScriptedProvider.make()
        try await provider.run { issuer in
            let clock = TestClock()
            clock.advance(Date().timeIntervalSince(clock.now))
            let capture = LogCapture()
            var logger = Logger(label: "sign-in", factory: { _ in capture })
            logger.logLevel = .trace
            try await withAuthServer(.sqlite, clock: clock, logger: logger, configure: { $0.auth.maxOpenSignInsPerAddress = 2 }, setup: { admin in
                try await admin.putProvider(IdentityProvider(name: "scripted", issuer: issuer, clientID: ScriptedProvider.clientID),
                                            secret: ProviderSecret("scripted-secret"))
                _ = try await admin.configureSignIn("hockey", redirectURIs: [IDTokenCheckTests.redirect], allowsSignUp: false)
            }) { client, _ in
                func start(accept: String) async throws -> TestResponse {
                    try await client.execute(uri: "/auth/authorize?" + PercentEncoding.encodeForm([
                        ("provider", "scripted"), ("redirect_uri", IDTokenCheckTests.redirect),
                        ("code_challenge", PKCE.challenge(for: PKCE.verifier())), ("state", "s")]),
                        method: .get, headers: [.accept: accept], body: nil)
                }
                for _ in 0 ..< 2 { #expect(try await start(accept: "application/json").status == .found) }
                let app = try await start(accept: "application/json")
                #expect(app.status == .tooManyRequests && app.headers[.retryAfter] == "601", "\(app.status) \(app.text)")
                #expect(app.text.contains(#""code":"TooManyRequests""#) && app.text.contains("Too many sign-ins started from this address"))
                let page = try await start(accept: "text/html")
                #expect(page.status == .tooManyRequests && page.headers[.retryAfter] != nil)
                #expect(page.headers[.contentType]?.hasPrefix("text/html") == true && page.text.contains("Too many sign-ins"))
                #expect(capture.lines.contains { $0.contains("Hosted sign-in refused") && $0.contains("Too many sign-ins started") }, "\(capture.lines.suffix(5))")

                clock.advance(601)
                #expect(try await start(accept: "application/json").status == .found, "expired flows free the address")
            }
        }
    }
}
