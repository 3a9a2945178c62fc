import StrataCore

/// What a password chosen at sign-up must be: long enough, not among the most common passwords,
/// and not the account name (NIST SP 800-63B §5.1.1.2: length and a blocklist, no composition rules).
package enum PasswordRules {
    package static let minimumLength = 10
    /// bcrypt reads 72 bytes; more would be silently ignored, so it is refused instead.
    static let maximumBytes = 72

    static func check(_ password: String, username: String) throws(ODataError) {
        guard password.count >= minimumLength else {
            throw .badRequest("A password has at least \(minimumLength) characters; a few words make a good one.", code: "WeakPassword")
        }
        guard password.utf8.count <= maximumBytes else {
            throw .badRequest("A password has at most \(maximumBytes) bytes (bcrypt reads no more).", code: "WeakPassword")
        }
        let folded = password.lowercased()
        guard !CommonPasswords.list.contains(Substring(folded)) else {
            throw .badRequest("This password is among the most common ones; choose another.", code: "WeakPassword")
        }
        guard folded != username.lowercased() else {
            throw .badRequest("The password may not be the account name.", code: "WeakPassword")
        }
    }
}
