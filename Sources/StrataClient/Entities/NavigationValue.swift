import Foundation

/// What a navigation property holds in a response.
public enum NavigationValue: Sendable, Hashable {
    /// Not expanded: the URL that reads the related entities (`{"__deferred":{"uri":…}}`).
    case deferred(URL?)
    /// An expanded to-one navigation; nil when there is no related entity.
    case entity(Entity?)
    /// An expanded to-many navigation (a bare array in V1, `{"results":[…]}` in V2).
    case entities([Entity])
}
