import Hummingbird
import KilnCore
import NIOCore

/// A request's context: Hummingbird's, and who is asking (`AccessMiddleware` decides it).
public struct KilnRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Who is asking; anonymous until `AccessMiddleware` has looked.
    public var access = Access.anonymous(.none)
    /// The hash of the token that signed in through the session cookie, for forms'
    /// anti-forgery values; nil for a bearer token or none.
    public var sessionTokenHash: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }
}
