import StrataCore
import StrataDemo
import Testing

@Suite struct QueryRoundTripTests {
    @Test func randomExpressionsRoundTrip() throws {
        var generator = QueryASTGenerator(random: SplitMix64(seed: 0xA57_0001))
        let limits = QueryLimits(maxFilterDepth: 10_000, maxFilterNodes: 1_000_000)
        for _ in 0..<4000 {
            let expression = generator.expression(depth: 6)
            let text = expression.text
            let parsed = try QueryOptionParser.filter(text, limits: limits)
            #expect(parsed == expression, "\(text)")
        }
    }

    @Test func randomOptionsRoundTrip() throws {
        var generator = QueryASTGenerator(random: SplitMix64(seed: 0xA57_0002))
        let limits = QueryLimits(maxFilterDepth: 10_000, maxFilterNodes: 1_000_000, maxExpandDepth: 100,
                                 maxExpandWidth: 100, maxTop: .max, maxQueryStringLength: .max)
        for _ in 0..<1500 {
            let options = generator.options()
            let parsed = try QueryOptions(parsing: options.queryString, limits: limits)
            #expect(parsed == options, "\(options.queryString)")
        }
    }
}
