// Events/: what a parse delivers: the handler protocol, borrowed views, lossless numbers and owned
// events; calls nothing but Support/.

/// Receives a document's events as the parser finds them: the fast, borrowing interface.
///
/// Every method has a default implementation that does nothing, so a handler implements only
/// what it needs. Keys, strings and numbers arrive as borrowed views (``JSONStringView``,
/// ``JSONNumberView``) valid only during the call; copy what you keep.
///
/// Each call gets a ``JSONEventContext``: the event's path and depth, its byte offset, and
/// ``JSONEventContext/stop()`` to end the parse early. Throwing from a method ends the parse, and
/// the parser rethrows your error unchanged.
///
/// The methods are called on the thread that feeds the parser, one at a time, in document order.
/// A handler is a class so the parser can call it without copying or boxing.
///
/// ```swift
/// final class NameCounter: JSONEventHandler {
///     var names = 0
///     func key(_ key: JSONStringView, context: JSONEventContext) throws {
///         if key == "name" { names += 1 }
///     }
/// }
/// ```
public protocol JSONEventHandler: AnyObject {
    /// `{`: an object starts. The context's path is the object's own path.
    func startObject(context: JSONEventContext) throws
    /// `}`: the object at the context's path ends.
    func endObject(context: JSONEventContext) throws
    /// `[`: an array starts. The context's path is the array's own path.
    func startArray(context: JSONEventContext) throws
    /// `]`: the array at the context's path ends.
    func endArray(context: JSONEventContext) throws
    /// An object key. The context's path already ends with this key.
    func key(_ key: JSONStringView, context: JSONEventContext) throws
    /// A string value.
    func string(_ value: JSONStringView, context: JSONEventContext) throws
    /// A number value, with its original text.
    func number(_ value: JSONNumberView, context: JSONEventContext) throws
    /// `true` or `false`.
    func bool(_ value: Bool, context: JSONEventContext) throws
    /// `null`.
    func null(context: JSONEventContext) throws
}

// Inlinable, so that a handler's witness for an event it ignores is an empty function of its own
// module rather than a call into this one per event.
extension JSONEventHandler {
    @inlinable public func startObject(context: JSONEventContext) throws {}
    @inlinable public func endObject(context: JSONEventContext) throws {}
    @inlinable public func startArray(context: JSONEventContext) throws {}
    @inlinable public func endArray(context: JSONEventContext) throws {}
    @inlinable public func key(_ key: JSONStringView, context: JSONEventContext) throws {}
    @inlinable public func string(_ value: JSONStringView, context: JSONEventContext) throws {}
    @inlinable public func number(_ value: JSONNumberView, context: JSONEventContext) throws {}
    @inlinable public func bool(_ value: Bool, context: JSONEventContext) throws {}
    @inlinable public func null(context: JSONEventContext) throws {}
}
