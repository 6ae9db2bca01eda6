/// Several ``JSONPathQuery``s compiled into one set of states, matched one path step at a time.
///
/// State `offsets[q] + k` means "query q has matched its first k segments"; a set of states is a
/// 64-bit mask. Stepping over a key or an index maps the states of a container to the states of
/// its child; a descendant segment keeps its state (a self-loop) at every level. A child whose
/// states include a final state is selected. A container with no live state is skipped wholesale.
struct PathMatcher {
    struct Step {
        enum Match {
            case key([UInt8])
            case index(Int)
            case any
        }
        let match: Match
        let isDescendant: Bool
    }

    /// Per state: the step that leaves it (nil for final states).
    private let steps: [Step?]
    /// States reached from the root before any step (the root is selected by a bare `$`).
    let initial: UInt64
    /// Final states.
    let accepting: UInt64
    /// The query each state belongs to.
    private let queryOfState: [Int]
    /// Per query: the state reached at the end of its anchor (its leading plain segments).
    let anchorStates: [UInt64]

    static let maxStates = 64

    init(_ queries: [JSONPathQuery]) throws {
        var steps: [Step?] = []
        var queryOfState: [Int] = []
        var initial: UInt64 = 0
        var accepting: UInt64 = 0
        var anchors: [UInt64] = []
        for (q, query) in queries.enumerated() {
            let first = steps.count
            guard first + query.segments.count + 1 <= Self.maxStates else {
                throw JSONPathSyntaxError(
                    expression: query.expression,
                    position: 0,
                    message:
                        "too many paths in one pass: \(queries.count) paths with \(queries.reduce(0) { $0 + $1.segments.count }) segments "
                        + "need \(queries.reduce(0) { $0 + $1.segments.count + 1 }) matcher states, and one pass has \(Self.maxStates) "
                        + "(each path takes one state per segment plus one); split the paths over several passes"
                )
            }
            for segment in query.segments {
                let match: Step.Match
                switch segment.selector {
                case .key(let key): match = .key(Array(key.utf8))
                case .index(let index): match = .index(index)
                case .wildcard: match = .any
                }
                steps.append(Step(match: match, isDescendant: segment.isDescendant))
                queryOfState.append(q)
            }
            steps.append(nil)
            queryOfState.append(q)
            initial |= 1 << UInt64(first)
            accepting |= 1 << UInt64(first + query.segments.count)
            // A query anchored at the root (`$..x`, `$[*]`, `$`) has no anchor to wait for: it can
            // match until the document ends, which the parser itself reports.
            anchors.append(query.anchorLength == 0 ? 0 : 1 << UInt64(first + query.anchorLength))
        }
        self.steps = steps
        self.queryOfState = queryOfState
        self.initial = initial
        self.accepting = accepting
        self.anchorStates = anchors
    }

    /// The states of the child at `key` of a container in `states`.
    @inline(__always)
    func step(_ states: UInt64, key: UnsafeRawBufferPointer) -> UInt64 {
        step(states) { match in
            if case .key(let name) = match {
                return name.count == key.count && name.withUnsafeBytes { $0.elementsEqual(key) }
            }
            return false
        }
    }

    /// The states of the element at `index` of an array in `states`.
    @inline(__always)
    func step(_ states: UInt64, index: Int) -> UInt64 {
        step(states) { match in
            if case .index(let wanted) = match { return wanted == index }
            return false
        }
    }

    /// One step over a child that `selects` says a key or index selector matches: descendant
    /// states stay, matching states advance, wildcards always advance.
    @inline(__always)
    private func step(_ states: UInt64, selects: (Step.Match) -> Bool) -> UInt64 {
        var result: UInt64 = 0
        var remaining = states & ~accepting
        while remaining != 0 {
            let state = remaining.trailingZeroBitCount
            remaining &= remaining - 1
            guard let step = steps[state] else { continue }
            if step.isDescendant { result |= 1 << UInt64(state) }
            if case .any = step.match {
                result |= 1 << UInt64(state + 1)
            } else if selects(step.match) {
                result |= 1 << UInt64(state + 1)
            }
        }
        return result
    }

    /// The first query that `states` completes.
    func matchedQuery(_ states: UInt64) -> Int {
        queryOfState[(states & accepting).trailingZeroBitCount]
    }

    /// The queries whose anchor value is the one with `states`, as a mask over queries.
    func anchoredQueries(_ states: UInt64) -> UInt64 {
        var mask: UInt64 = 0
        for (q, anchor) in anchorStates.enumerated() where states & anchor != 0 { mask |= 1 << UInt64(q) }
        return mask
    }
}
