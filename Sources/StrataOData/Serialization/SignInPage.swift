import HTTPTypes
import Hummingbird
import StrataCore
import StrataIdentity

/// The hosted sign-in page (`/auth/sign-in`) and its error page: server-rendered HTML, no script,
/// no external assets, a labelled link per provider and, where the service allows sign-up, a form.
/// Every text from a request or the configuration is escaped.
package enum SignInPage {
    package static func page(providers: [IdentityProvider], app: HostedSignIn.AppRequest, allowsSignUp: Bool, title: String) -> [UInt8] {
        var body = "<h1>Sign in to \(escape(title))</h1>\n"
        if providers.isEmpty {
            body += "<p>No identity provider is configured.</p>\n"
        } else {
            body += "<ul class=\"providers\">\n"
            for provider in providers {
                let href = "/auth/authorize?" + PercentEncoding.encodeForm([("provider", provider.name)] + app.fields)
                let icon = provider.iconURL.map { "<img src=\"\(escape($0))\" alt=\"\" width=\"20\" height=\"20\"> " } ?? ""
                body += "<li><a class=\"provider\" href=\"\(escape(href))\">\(icon)Sign in with \(escape(provider.displayName))</a></li>\n"
            }
            body += "</ul>\n"
        }
        if allowsSignUp {
            body += "<h2>New here? Create an account</h2>\n<form method=\"post\" action=\"/auth/sign-up\">\n"
            for (name, value) in app.fields {
                body += "<input type=\"hidden\" name=\"\(escape(name))\" value=\"\(escape(value))\">\n"
            }
            body += """
                <p><label for="username">Account name</label><br><input id="username" name="username" autocomplete="username" required maxlength="128"></p>
                <p><label for="password">Password (at least \(PasswordRules.minimumLength) characters)</label><br>\
                <input id="password" name="password" type="password" autocomplete="new-password" required minlength="\(PasswordRules.minimumLength)"></p>
                <p><button type="submit">Create account</button></p>
                </form>

                """
        }
        return document(title: "Sign in to \(title)", body: body)
    }

    package static func error(_ error: ODataError) -> [UInt8] {
        document(title: "Sign-in failed", body: "<h1>Sign-in failed</h1>\n<p role=\"alert\">\(escape(error.message))</p>\n")
    }

    package static func response(_ bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
        // No framing by other sites (clickjacking), nothing loaded from elsewhere, and never cached.
        ODataResponse.body(bytes, status: status, headers: [
            .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
            HTTPField.Name("Content-Security-Policy")!: "default-src 'none'; img-src https: data:; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
            HTTPField.Name("X-Frame-Options")!: "DENY", HTTPField.Name("Referrer-Policy")!: "no-referrer",
        ], headRequest: false)
    }

    private static func document(title: String, body: String) -> [UInt8] {
        Array("""
            <!doctype html>
            <html lang="en">
            <head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title))</title>
            <style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem;line-height:1.5}\
            ul{list-style:none;padding:0}a.provider{display:block;padding:.75rem 1rem;margin:.5rem 0;border:1px solid #555;\
            border-radius:.5rem;text-decoration:none;color:inherit}a.provider:focus,a.provider:hover{outline:3px solid #1a73e8}\
            input{width:100%;padding:.5rem;box-sizing:border-box}button{padding:.6rem 1.2rem}</style></head>
            <body><main>
            \(body)</main></body>
            </html>

            """.utf8)
    }

    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
