#if canImport(Security)
import Foundation
import Security

/// Keeps tokens in the Keychain as a generic password, on Apple platforms.
public struct KeychainTokenStore: TokenStore {
    /// The Keychain service name, such as your app's bundle identifier.
    public let service: String
    /// The entry, such as the server URL.
    public let account: String

    /// A store for the Keychain item of `service` and `account`.
    public init(service: String, account: String) {
        self.service = service
        self.account = account
    }

    private var query: [String: Any] {
        [kSecClass as String: kSecClassGenericPassword,
         kSecAttrService as String: service,
         kSecAttrAccount as String: account]
    }

    public func loadTokens() async throws -> Tokens? {
        var search = query
        search[kSecReturnData as String] = true
        search[kSecMatchLimit as String] = kSecMatchLimitOne
        var item: CFTypeRef?
        let status = SecItemCopyMatching(search as CFDictionary, &item)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let data = item as? Data else { throw KeychainError(status: status) }
        return try JSONDecoder.tokens.decode(Tokens.self, from: data)
    }

    public func saveTokens(_ tokens: Tokens?) async throws {
        guard let tokens else {
            let status = SecItemDelete(query as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else { throw KeychainError(status: status) }
            return
        }
        let data = try JSONEncoder.tokens.encode(tokens)
        let update = [kSecValueData as String: data] as CFDictionary
        var status = SecItemUpdate(query as CFDictionary, update)
        if status == errSecItemNotFound {
            var add = query
            add[kSecValueData as String] = data
            add[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            status = SecItemAdd(add as CFDictionary, nil)
        }
        guard status == errSecSuccess else { throw KeychainError(status: status) }
    }
}

/// A Keychain call failed with an `OSStatus`.
public struct KeychainError: Error, CustomStringConvertible {
    /// The status the Security framework returned.
    public let status: OSStatus
    public var description: String {
        let text = SecCopyErrorMessageString(status, nil) as String? ?? "unknown error"
        return "Keychain error \(status): \(text)"
    }
}
#endif
