import StrataCore
@testable import StrataServer
@testable import StrataStorage
@testable import StrataIdentity
@testable import StrataOData
@testable import StrataBlobs
@testable import StrataDataTables
@testable import StrataFeed
import Testing

/// `$claims.<name>` in row filters: substituted as string literals, never as syntax.
@Suite("Auth: row filter claims")
struct AuthRowFilterTests {
    @Test("Claims become quoted literals; a quote in a value is doubled; text in strings is left alone")
    func substitution() throws {
        #expect(try GrantRowFilter.substitute("ownerId eq $claims.sub", claims: ["sub": "ann"]) == "ownerId eq 'ann'")
        #expect(try GrantRowFilter.substitute("a eq $claims.sub or b eq $claims.email", claims: ["sub": "x", "email": "y@z"])
                == "a eq 'x' or b eq 'y@z'")
        #expect(try GrantRowFilter.substitute("name eq $claims.sub", claims: ["sub": "o' or 1 eq 1 or 'a"])
                == "name eq 'o'' or 1 eq 1 or ''a'")
        #expect(try GrantRowFilter.substitute("note eq '$claims.sub' and x eq $claims.sub", claims: ["sub": "v"])
                == "note eq '$claims.sub' and x eq 'v'")
        #expect(try GrantRowFilter.substitute("note eq 'it''s $claims.sub'", claims: [:]) == "note eq 'it''s $claims.sub'")
        #expect(GrantRowFilter.referencedClaims("a eq $claims.sub or b eq $claims.tenant_id or c eq '$claims.no'") == ["sub", "tenant_id"])
        #expect(throws: GrantRowFilter.MissingClaim.self) { try GrantRowFilter.substitute("a eq $claims.tenant", claims: ["sub": "x"]) }
    }

    @Test("A hostile claim value stays one string literal after parsing")
    func hostileValueParses() throws {
        let text = try GrantRowFilter.substitute("name eq $claims.sub", claims: ["sub": "x') or (1 eq 1"])
        let parsed = try QueryOptionParser.filter(text)
        guard case .binary(.eq, _, let rhs) = parsed else {
            Issue.record("expected a single comparison, got \(parsed)")
            return
        }
        #expect(rhs == .literal(.string("x') or (1 eq 1")))
    }
}
