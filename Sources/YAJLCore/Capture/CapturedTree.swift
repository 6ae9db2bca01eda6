/// A captured value (on a ``Tape``) indexed as a tree, for what a stream cannot decide alone:
/// filters, indices that count from the end, matches nested in a selected value, and the RFC's
/// order. Built in one walk over the value's tape bytes and its source positions; the nodes of
/// one container's children are contiguous. It costs about 64 bytes per value of the capture,
/// and its storage is reused from capture to capture.
struct CapturedTree {
    struct Node {
        /// Where the value's tag is on the tape.
        let tape: Int
        /// Where the member's key is on the tape; -1 for an element or the root.
        let key: Int
        /// The element's index, or the member's position in its object.
        let index: Int
        /// The parent node; -1 for the root.
        let parent: Int
        /// The first child node (its children are contiguous), and how many there are.
        var firstChild = 0
        var childCount = 0
        /// Where the value starts in the source.
        var position = SourcePosition(offset: 0, line: 1, column: 1)
    }

    private(set) var view = TapeView(
        bytes: UnsafeRawBufferPointer(start: nil, count: 0),
        positions: UnsafeRawBufferPointer(start: nil, count: 0)
    )
    private(set) var nodes: [Node] = []
    /// The nodes still to visit while indexing (kept to reuse its storage).
    private var pending: [Int] = []

    /// An empty tree, to index captures into with ``index(_:root:positionStart:)``.
    init() {}

    /// Indexes the value at `root` of `view`, whose source positions are at `positionStart` (the
    /// value must be the first of its record: its position is stored whole). The storage of the
    /// previous capture's tree is reused. Stops, returning `false`, once it would hold more than
    /// `maxNodes` nodes (the value's buffer limit, in nodes).
    @discardableResult
    mutating func index(_ view: TapeView, root: Int, positionStart: Int, maxNodes: Int = .max) -> Bool {
        self.view = view
        nodes.removeAll(keepingCapacity: true)
        pending.removeAll(keepingCapacity: true)
        var reader = PositionReader(positions: view.positions, cursor: positionStart)
        var position = reader.first()
        nodes.append(Node(tape: root, key: -1, index: 0, parent: -1))
        // Pre-order, as the positions were recorded: a node's position is read when it is visited.
        pending.append(0)
        var first = true
        while let node = pending.popLast() {
            if !first { position = reader.next(after: position) }
            first = false
            nodes[node].position = position
            let tape = nodes[node].tape
            let kind = view.kind(tape)
            guard kind == .object || kind == .array else { continue }
            let firstChild = nodes.count
            var child = view.firstChild(tape)
            let end = view.end(tape)
            var ordinal = 0
            while child < end {
                if kind == .object {
                    let value = view.next(child)
                    nodes.append(Node(tape: value, key: child, index: ordinal, parent: node))
                    child = view.next(value)
                } else {
                    nodes.append(Node(tape: child, key: -1, index: ordinal, parent: node))
                    child = view.next(child)
                }
                ordinal += 1
                if nodes.count > maxNodes { return false }
            }
            nodes[node].firstChild = firstChild
            nodes[node].childCount = ordinal
            for index in stride(from: nodes.count - 1, through: firstChild, by: -1) { pending.append(index) }
        }
        return true
    }

    @inline(__always)
    func kind(_ node: Int) -> Tape.Kind { view.kind(nodes[node].tape) }

    /// The children of `node`, in document order.
    @inline(__always)
    func children(_ node: Int) -> Range<Int> {
        nodes[node].firstChild..<(nodes[node].firstChild + nodes[node].childCount)
    }

    /// The path of `node` from the root of the capture.
    func relativePath(_ node: Int) -> [JSONPath.Component] {
        var components: [JSONPath.Component] = []
        var current = node
        while nodes[current].parent >= 0 {
            let info = nodes[current]
            components.append(info.key >= 0 ? .key(view.string(info.key)) : .index(info.index))
            current = info.parent
        }
        return components.reversed()
    }

    /// Whether the key of member `node` is `name`'s UTF-8.
    @inline(__always)
    func keyEquals(_ node: Int, _ name: String) -> Bool {
        nodes[node].key >= 0 && view.keyEquals(nodes[node].key, name)
    }
}
