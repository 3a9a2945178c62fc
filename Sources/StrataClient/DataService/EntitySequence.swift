import Foundation
import StrataCore

/// Every entity of a query, page after page: the sequence follows next-page links (`__next` in V2,
/// `@odata.nextLink` in V4) until the last page.
///
/// Pages are requested one at a time as you iterate, so memory holds one page however many entities
/// there are; stopping early sends no further requests.
/// ```swift
/// for try await person in service.set("Person").entities(as: Person.self) {
///     print(person.lastName)
/// }
/// ```
/// Errors are ``StrataError``s.
public struct EntitySequence<Element: Sendable>: AsyncSequence, Sendable {
    let service: DataService
    let firstPath: String
    let transform: @Sendable (Entity) throws(StrataError) -> Element

    public func makeAsyncIterator() -> Iterator {
        Iterator(pages: PageSequence(service: service, firstPath: firstPath).makeAsyncIterator(), transform: transform)
    }

    /// Reads entities from the current page, fetching the next page when it runs out.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        var pages: PageSequence.Iterator
        let transform: @Sendable (Entity) throws(StrataError) -> Element
        var buffer: [Entity] = []
        var index = 0

        public mutating func next() async throws -> Element? {
            while index >= buffer.count {
                guard let page = try await pages.next() else { return nil }
                buffer = page.entities
                index = 0
            }
            defer { index += 1 }
            return try transform(buffer[index])
        }
    }
}

/// The pages of a query, following next-page links; see ``ODataQuery/pages()``.
public struct PageSequence: AsyncSequence, Sendable {
    public typealias Element = EntityPage

    let service: DataService
    let firstPath: String

    public func makeAsyncIterator() -> Iterator {
        Iterator(service: service, pending: firstPath)
    }

    /// Fetches one page per call to `next()`.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let service: DataService
        var pending: String?
        var visited: Set<String> = []

        public mutating func next() async throws -> EntityPage? {
            guard let path = pending else { return nil }
            pending = nil
            let response = try await service.send(StrataRequest(.get, path))
            let page = await service.completed(try ResponseReader.page(response))
            await service.etags.record(page.entities)
            if let next = page.nextLink?.absoluteString {
                // A server that hands out a link it already gave would make this loop forever.
                visited.insert(path)
                guard visited.insert(next).inserted else {
                    throw ResponseReader.invalid(response, "The server's next-page link \(next) repeats an earlier page")
                }
                pending = next
            }
            return page
        }
    }
}
