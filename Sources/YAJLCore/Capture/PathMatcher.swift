/// Several ``JSONPathQuery``s compiled into one set of states, matched one path step at a time
/// while the document streams.
///
/// State `offsets[q] + k` means "query q has matched its first k segments"; a set of states is a
/// 64-bit mask. Stepping over a key or an index maps the states of a container to the states of
/// its child; a descendant segment keeps its state (a self-loop) at every level. A child whose
/// states include a final state is selected. A container with no live state is skipped wholesale.
///
/// What a key or an index alone cannot decide is left to ``PathEvaluator`` on a captured value:
/// a filter's candidate (``filterStates``), an array whose selectors count from its end
/// (``arrayBufferStates``), and with ``JSONRecordOptions/Order/rfc`` or an absolute query in a
/// filter, the value where the streaming order would differ from the RFC's (``bufferStates``).
/// The mask says which states are live; how many times each is reached (a node selected twice
/// by `$[0,0]`) is counted again along the path when a value is captured (``counts(along:)``).
struct PathMatcher {
    /// Per state: its query and how many segments it has matched.
    struct State {
        let query: Int
        let segment: Int
    }

    let queries: [JSONPathQuery]
    let states: [State]
    /// Per query: its first state.
    let firstState: [Int]
    /// States reached from the root before any step (the root is selected by a bare `$`).
    let initial: UInt64
    /// Final states.
    let accepting: UInt64
    /// States whose next segment is a descendant one (kept at every level below).
    private let descendant: UInt64
    /// States whose next segment has a filter selector: each child is a candidate, captured and
    /// decided once complete.
    let filterStates: UInt64
    /// Filter states whose every filter is false for every array (`[?@.price < 10]`: an array has
    /// no member `price`): an array is not their candidate, and streams on.
    let arrayRejectingFilterStates: UInt64
    /// States whose next segment has an index or slice that counts from the end: an array in one
    /// of them is captured whole.
    let arrayBufferStates: UInt64
    /// States where the value is captured whole whatever it is (RFC order, absolute filters).
    let bufferStates: UInt64
    /// Whether a node can be reached more than once by one query (unions, several `..`).
    let mayRepeat: Bool
    /// Per query: the state reached at the end of its anchor (its leading plain segments).
    let anchorStates: [UInt64]
    /// Per query: the index of its anchor array past which nothing can match (`$.a[0:10]`: 10).
    let anchorIndexLimits: [Int?]
    /// The queries with such a limit, as a mask over queries.
    let indexLimitedQueries: UInt64
    /// Every query's anchor state.
    private let anyAnchor: UInt64

    /// What a selector decides from a key or an index alone, compiled for the per-member step.
    enum StepSelector {
        case key([UInt8])
        case index(Int)
        case any
        /// A forward slice: from `start` (≥ 0), below `end`, every `step` (> 0).
        case forward(start: Int, end: Int, step: Int)
        /// Filters, indices counting from the end, empty slices: never from a key or index alone.
        case never
    }
    /// The selectors of every state's segment, flat (``stepRanges`` gives each state's share).
    private let stepSelectors: [StepSelector]
    private let stepRanges: [Range<Int>]

    static let maxStates = 64

    init(_ queries: [JSONPathQuery], rfcOrder: Bool = false) throws(JSONPathSyntaxError) {
        var states: [State] = []
        var firstState: [Int] = []
        var initial: UInt64 = 0
        var accepting: UInt64 = 0
        var descendant: UInt64 = 0
        var filterStates: UInt64 = 0
        var arrayRejectingFilterStates: UInt64 = 0
        var arrayBufferStates: UInt64 = 0
        var bufferStates: UInt64 = 0
        var mayRepeat = false
        var anchors: [UInt64] = []
        var indexLimits: [Int?] = []
        let needed = queries.reduce(0) { $0 + $1.segments.count + 1 }
        for (q, query) in queries.enumerated() {
            let first = states.count
            guard needed <= Self.maxStates else {
                throw JSONPathSyntaxError(
                    expression: query.expression,
                    position: 0,
                    message:
                        "too many paths in one pass: \(queries.count) paths with \(needed - queries.count) segments "
                        + "need \(needed) matcher states, and one pass has \(Self.maxStates) "
                        + "(each path takes one state per segment plus one); split the paths over several passes"
                )
            }
            firstState.append(first)
            var orderIsSafe = true
            var descendants = 0
            for (k, segment) in query.segments.enumerated() {
                let bit: UInt64 = 1 << UInt64(first + k)
                if segment.isDescendant {
                    descendant |= bit
                    descendants += 1
                }
                if segment.selectors.count > 1 { mayRepeat = true }
                let filters = segment.selectors.compactMap { if case .filter(let f) = $0 { f } else { nil } }
                if !filters.isEmpty && filters.allSatisfy(Self.rejectsEveryArray) { arrayRejectingFilterStates |= bit }
                for selector in segment.selectors {
                    switch selector {
                    case .filter: filterStates |= bit
                    case .index(let index) where index < 0: arrayBufferStates |= bit
                    case .slice(let start, let end, let step) where !Self.isForward(start, end, step):
                        arrayBufferStates |= bit
                    default: break
                    }
                }
                // The streaming order is the document's; the RFC's differs after a union or `..`:
                // with `rfcOrder`, the value such a segment applies to is captured and evaluated
                // in the RFC's order.
                if rfcOrder && orderIsSafe && (segment.isDescendant || segment.selectors.count > 1) {
                    bufferStates |= bit
                    orderIsSafe = false
                }
                states.append(State(query: q, segment: k))
            }
            if descendants > 1 { mayRepeat = true }
            if query.usesAbsoluteFilterQueries { bufferStates |= 1 << UInt64(first) }
            states.append(State(query: q, segment: query.segments.count))
            initial |= 1 << UInt64(first)
            accepting |= 1 << UInt64(first + query.segments.count)
            // A query anchored at the root (`$..x`, `$[*]`, `$`) has no anchor to wait for: it can
            // match until the document ends, which the parser itself reports.
            // …unless its first segment stops at an index (`$[0:10]`): the root is then its anchor.
            let hasAnchor = query.anchorLength > 0 || query.anchorIndexLimit != nil
            anchors.append(hasAnchor ? 1 << UInt64(first + query.anchorLength) : 0)
            indexLimits.append(query.anchorIndexLimit)
        }
        self.queries = queries
        self.states = states
        self.firstState = firstState
        self.initial = initial
        self.accepting = accepting
        self.descendant = descendant
        self.filterStates = filterStates
        self.arrayRejectingFilterStates = arrayRejectingFilterStates
        self.arrayBufferStates = arrayBufferStates
        self.bufferStates = bufferStates
        self.mayRepeat = mayRepeat
        self.anchorStates = anchors
        self.anchorIndexLimits = indexLimits
        self.indexLimitedQueries = indexLimits.enumerated().reduce(0) {
            $1.element == nil ? $0 : $0 | 1 << UInt64($1.offset)
        }
        self.anyAnchor = anchors.reduce(0, |)
        var stepSelectors: [StepSelector] = []
        var stepRanges: [Range<Int>] = []
        for state in states {
            let first = stepSelectors.count
            let segments = queries[state.query].segments
            if state.segment < segments.count {
                for selector in segments[state.segment].selectors { stepSelectors.append(Self.compile(selector)) }
            }
            stepRanges.append(first..<stepSelectors.count)
        }
        self.stepSelectors = stepSelectors
        self.stepRanges = stepRanges
    }

    private static func compile(_ selector: JSONPathQuery.Selector) -> StepSelector {
        switch selector {
        case .wildcard: return .any
        case .key(let name): return .key(Array(name.utf8))
        case .index(let index): return index >= 0 ? .index(index) : .never
        case .slice(let start, let end, let step):
            guard isForward(start, end, step), (step ?? 1) > 0 else { return .never }
            return .forward(start: start ?? 0, end: end ?? Int.max, step: step ?? 1)
        case .filter: return .never
        }
    }

    /// Whether `filter` is false for every array: it reads only members by name (all empty on an
    /// array), and is false on an empty one.
    static func rejectsEveryArray(_ filter: JSONPathFilter) -> Bool {
        guard filter.expression.readsOnlyMembersByName else { return false }
        let tape = Tape()
        tape.startContainer(.array, at: SourcePosition(offset: 0, line: 1, column: 1))
        tape.endContainer()
        var tree = CapturedTree()
        tree.index(tape.view, root: 0, positionStart: 0)
        return !PathEvaluator(tree: tree, documentRoot: nil).test(filter.expression, current: 0)
    }

    /// Whether a slice selects the same elements whatever the array's length: it does not count
    /// from the end and goes forward.
    static func isForward(_ start: Int?, _ end: Int?, _ step: Int?) -> Bool {
        (start ?? 0) >= 0 && (end ?? 0) >= 0 && (step ?? 1) >= 0
    }

    /// The segment that leaves `state` (nil for a final state).
    @inline(__always)
    func segment(of state: Int) -> JSONPathQuery.Segment? {
        let info = states[state]
        let segments = queries[info.query].segments
        return info.segment < segments.count ? segments[info.segment] : nil
    }

    /// Whether `selector` selects the child at `key` or `index` (filters and selectors that count
    /// from the end never do here: they are decided on a captured value).
    @inline(__always)
    private static func selects(_ selector: StepSelector, key: UnsafeRawBufferPointer?, index: Int) -> Bool {
        switch selector {
        case .any: return true
        case .key(let name):
            guard let key, name.count == key.count else { return false }
            return key.isEmpty
                || name.withUnsafeBufferPointer { memcmpEqual($0.baseAddress!, key.baseAddress!, key.count) }
        case .index(let wanted): return key == nil && wanted == index
        case .forward(let start, let end, let step):
            return key == nil && index >= start && index < end && (index - start) % step == 0
        case .never: return false
        }
    }

    /// The states of the child at `key` of an object in `states`.
    @inline(__always)
    func step(_ states: UInt64, key: UnsafeRawBufferPointer) -> UInt64 {
        step(states, key: key, index: -1)
    }

    /// The states of the element at `index` of an array in `states`.
    @inline(__always)
    func step(_ states: UInt64, index: Int) -> UInt64 {
        step(states, key: nil, index: index)
    }

    /// One step: descendant states stay, states with a selector of the child advance.
    @inline(__always)
    private func step(_ states: UInt64, key: UnsafeRawBufferPointer?, index: Int) -> UInt64 {
        var result = states & descendant
        var remaining = states & ~accepting
        while remaining != 0 {
            let state = remaining.trailingZeroBitCount
            remaining &= remaining - 1
            for selector in stepRanges[state] where Self.selects(stepSelectors[selector], key: key, index: index) {
                result |= 1 << UInt64(state + 1)
                break
            }
        }
        return result
    }

    /// How many ways each state is reached at the end of `path` (a state absent is not reached),
    /// and the filter selectors of its parent's states that the value at `path` is a candidate
    /// of, each with the number of ways it is reached. Without ``mayRepeat`` every live state is
    /// reached once.
    func counts(
        along path: JSONPath
    ) -> (states: [(state: Int, count: Int)], pendingFilters: [(state: Int, filter: JSONPathFilter, count: Int)]) {
        var current: [(state: Int, count: Int)] = []
        var remaining = initial
        while remaining != 0 {
            current.append((remaining.trailingZeroBitCount, 1))
            remaining &= remaining - 1
        }
        var pending: [(state: Int, filter: JSONPathFilter, count: Int)] = []
        for (level, component) in path.components.enumerated() {
            let isLast = level == path.components.count - 1
            var next: [Int: Int] = [:]
            for (state, count) in current {
                guard let segment = segment(of: state) else { continue }
                if segment.isDescendant { next[state, default: 0] = Self.saturatingAdd(next[state, default: 0], count) }
                for (offset, selector) in segment.selectors.enumerated() {
                    let compiled = stepSelectors[stepRanges[state].lowerBound + offset]
                    let selected: Bool
                    switch component {
                    case .key(let key):
                        var key = key
                        selected = key.withUTF8 { Self.selects(compiled, key: UnsafeRawBufferPointer($0), index: -1) }
                    case .index(let index):
                        selected = Self.selects(compiled, key: nil, index: index)
                    }
                    if selected { next[state + 1, default: 0] = Self.saturatingAdd(next[state + 1, default: 0], count) }
                    if isLast, case .filter(let filter) = selector { pending.append((state, filter, count)) }
                }
            }
            current = next.map { ($0.key, $0.value) }.sorted { $0.state < $1.state }
        }
        return (current, pending)
    }

    /// ``counts(along:)`` without the walk, when no state can be reached twice (no union, at most
    /// one `..` per query): every live state once, and every filter of the parent's states.
    func singleCounts(
        states: UInt64,
        parentStates: UInt64
    ) -> (states: [(state: Int, count: Int)], pendingFilters: [(state: Int, filter: JSONPathFilter, count: Int)]) {
        var live: [(state: Int, count: Int)] = []
        var remaining = states
        while remaining != 0 {
            live.append((remaining.trailingZeroBitCount, 1))
            remaining &= remaining - 1
        }
        var pending: [(state: Int, filter: JSONPathFilter, count: Int)] = []
        remaining = parentStates & filterStates
        while remaining != 0 {
            let state = remaining.trailingZeroBitCount
            remaining &= remaining - 1
            for selector in segment(of: state)?.selectors ?? [] {
                if case .filter(let filter) = selector { pending.append((state, filter, 1)) }
            }
        }
        return (live, pending)
    }

    /// Counts of selections saturate instead of trapping: `$..*..*..*…` on a deep document
    /// selects a node astronomically often, and a stream stops at ``JSONRecordOptions/limit``.
    static func saturatingAdd(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? Int.max : sum
    }

    /// The queries whose anchor value is the one with `states`, as a mask over queries.
    @inline(__always)
    func anchoredQueries(_ states: UInt64) -> UInt64 {
        guard states & anyAnchor != 0 else { return 0 }
        var mask: UInt64 = 0
        for (q, anchor) in anchorStates.enumerated() where states & anchor != 0 { mask |= 1 << UInt64(q) }
        return mask
    }
}
