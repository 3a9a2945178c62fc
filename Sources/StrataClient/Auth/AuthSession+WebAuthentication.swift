#if canImport(AuthenticationServices) && !os(watchOS) && !os(tvOS)
import AuthenticationServices
import Foundation
#if canImport(UIKit)
import UIKit
#else
import AppKit
#endif

extension AuthSession {
    /// A ``SignInPresenter`` that shows the sign-in in the system's authentication browser
    /// (`ASWebAuthenticationSession`), which shares the user's cookies with Safari unless
    /// `prefersEphemeralSession` is set, and returns when it reaches the redirect URI.
    ///
    /// ```swift
    /// try await auth.signIn(with: "google", redirectURI: URL(string: "com.example.hockey:/signed-in")!,
    ///                       presenter: AuthSession.webAuthenticationPresenter())
    /// ```
    ///
    /// The redirect URI is an app scheme (`com.example.hockey:/signed-in`) or an https URL of the
    /// app's associated domain; closing the sheet throws ``StrataError/Kind/cancelled``.
    public static func webAuthenticationPresenter(prefersEphemeralSession: Bool = false) -> SignInPresenter {
        { url, redirectURI in
            try await WebAuthentication.run(url: url, redirectURI: redirectURI, ephemeral: prefersEphemeralSession)
        }
    }
}

/// Runs one `ASWebAuthenticationSession` on the main actor and waits for its callback.
@MainActor
private final class WebAuthentication: NSObject, ASWebAuthenticationPresentationContextProviding {
    /// Held by the completion handler until it runs: the session's context provider is a weak reference.
    private var session: ASWebAuthenticationSession?

    static func run(url: URL, redirectURI: URL, ephemeral: Bool) async throws -> URL {
        let callback: ASWebAuthenticationSession.Callback
        if redirectURI.scheme?.lowercased() == "https", let host = redirectURI.host() {
            callback = .https(host: host, path: redirectURI.path())
        } else {
            callback = .customScheme(redirectURI.scheme ?? "")
        }
        let provider = WebAuthentication()
        return try await withCheckedThrowingContinuation { continuation in
            let session = ASWebAuthenticationSession(url: url, callback: callback) { returned, error in
                provider.session = nil
                if let returned {
                    continuation.resume(returning: returned)
                } else if let error = error as? ASWebAuthenticationSessionError, error.code == .canceledLogin {
                    continuation.resume(throwing: StrataError(.cancelled, url: url, message: "The sign-in was cancelled.", underlying: error))
                } else {
                    continuation.resume(throwing: StrataError(.transport, url: url,
                                                              message: "The sign-in page failed: \(error.map { "\($0)" } ?? "no answer")",
                                                              underlying: error))
                }
            }
            provider.session = session
            session.presentationContextProvider = provider
            session.prefersEphemeralWebBrowserSession = ephemeral
            if !session.start() {
                provider.session = nil
                continuation.resume(throwing: StrataError(.invalidRequest, url: url, message: "The sign-in page could not be shown."))
            }
        }
    }

    nonisolated func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
        // ASWebAuthenticationSession asks on the main thread.
        MainActor.assumeIsolated {
            #if canImport(UIKit)
            let windows = UIApplication.shared.connectedScenes.compactMap { $0 as? UIWindowScene }.flatMap(\.windows)
            return windows.first(where: \.isKeyWindow) ?? windows.first ?? ASPresentationAnchor()
            #else
            return NSApplication.shared.keyWindow ?? NSApplication.shared.windows.first ?? ASPresentationAnchor()
            #endif
        }
    }
}
#endif
