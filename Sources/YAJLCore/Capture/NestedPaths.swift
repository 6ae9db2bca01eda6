/// The paths of the values selected inside one captured value (`$..*`, `$.a..b`), shared by all
/// of them: one entry per node on the way from the capture to a selected value (its parent entry
/// and its step), so that the paths of a value's N nested selections cost O(N) together, not
/// O(N × depth). A path is made whole only when asked (``JSONRecord/path``, an error).
///
/// Built while one capture is evaluated, then only read (from the thread that takes the records).
final class NestedPaths: @unchecked Sendable {
    /// The captured value's own path.
    let base: JSONPath
    private var parents: [Int32] = []
    private var steps: [JSONPath.Component] = []
    /// The entry of each tree node visited so far (-1: none), while building.
    private var entryOfNode: [Int32] = []

    init(base: JSONPath, nodeCount: Int) {
        self.base = base
        entryOfNode = [Int32](repeating: -1, count: nodeCount)
    }

    /// The bytes this holds, as counted against ``JSONRecordOptions/maxBufferedBytes``.
    var footprint: Int {
        parents.count * (MemoryLayout<Int32>.stride + MemoryLayout<JSONPath.Component>.stride)
            + entryOfNode.count * MemoryLayout<Int32>.stride
    }

    /// The entry of `node` of `tree` (not its root), adding it and those of its ancestors not
    /// added yet.
    func entry(for node: Int, in tree: CapturedTree) -> Int32 {
        // Up to the first ancestor already added (or the root), then the entries down from it.
        var chain: [Int] = []
        var current = node
        while current > 0 && entryOfNode[current] < 0 {
            chain.append(current)
            current = tree.nodes[current].parent
        }
        var parent: Int32 = current > 0 ? entryOfNode[current] : -1
        for visited in chain.reversed() {
            let info = tree.nodes[visited]
            parents.append(parent)
            steps.append(info.key >= 0 ? .key(tree.view.string(info.key)) : .index(info.index))
            parent = Int32(parents.count - 1)
            entryOfNode[visited] = parent
        }
        return entryOfNode[node]
    }

    /// Done building: the map from tree nodes is dropped.
    func finish() { entryOfNode = [] }

    /// The path of `entry`.
    func path(of entry: Int32) -> JSONPath {
        var components: [JSONPath.Component] = []
        var current = entry
        while current >= 0 {
            components.append(steps[Int(current)])
            current = parents[Int(current)]
        }
        return JSONPath(base.components + components.reversed())
    }
}
