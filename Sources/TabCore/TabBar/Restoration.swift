// R11.1–R11.2: state preservation — each tab's restoration path, what `preserve` saves and
// what `restore` brings back, at any depth of the tree (R13.8).

extension Controller {
    // MARK: R11 — state preservation

    /// The address of every tab of the tree, parents first, children in `children` order:
    /// the tabs' indices for a controller without groups.
    var treeAddresses: [[Int]] {
        var all: [[Int]] = []
        all.reserveCapacity(tabs.count)
        func visit(_ t: Tab, _ at: [Int]) {
            all.append(at)
            for (i, k) in (t.children ?? []).enumerated() { visit(k, at + [i]) }
        }
        for (i, t) in tabs.enumerated() { visit(t, [i]) }
        return all
    }

    /// Every tab of the tree, in `treeAddresses` order.
    private var treeTabs: [Tab] {
        var all: [Tab] = []
        func visit(_ t: Tab) { all.append(t); for k in t.children ?? [] { visit(k) } }
        for t in tabs { visit(t) }
        return all
    }

    /// R11.1–R11.2, R13.8: the restoration path of each tab of the tree (nil without a
    /// restoration id), in `treeAddresses` order (for a controller without groups: tab
    /// order). It never depends on the tab id (R11.1: a tab renamed between preserve and
    /// restore keeps its stack): the restoration id alone when no other tab has it, else
    /// "<restoration id>#<n>", n counting the tabs with that restoration id from 0 in that
    /// order, so paths stay unique (R11.2). '\\' and '#' are escaped in the restoration id so
    /// the first unescaped '#' always ends it (ids may contain '#').
    public var restorationPaths: [String?] { Self.restorationPaths(of: treeTabs) }

    private static func restorationPaths(of all: [Tab]) -> [String?] {
        var count: [String: Int] = [:]
        for t in all { if let rid = t.restorationID { count[rid, default: 0] += 1 } }
        var seen: [String: Int] = [:]
        return all.map { t in
            guard let rid = t.restorationID else { return nil }
            let escaped = Self.escaped(rid)
            guard count[rid]! > 1 else { return escaped }
            let n = seen[rid, default: 0]
            seen[rid] = n + 1
            return escaped + "#" + String(n)
        }
    }

    /// The restoration path of one of the controller's tabs, at any depth (see `restorationPaths`).
    public func restorationPath(of tab: Tab) -> String? {
        guard tab.restorationID != nil, let i = treeTabs.firstIndex(where: { $0.id == tab.id }) else { return nil }
        return restorationPaths[i]
    }

    /// The path tabd 0.1.0 gave a tab: "<restoration id>#<tab id>".
    private static func legacyPath(_ tab: Tab) -> String? {
        tab.restorationID.map { escaped($0) + "#" + tab.id }
    }

    private static func escaped(_ rid: String) -> String {
        var path = ""
        for ch in rid {
            if ch == "#" || ch == "\\" { path.append("\\") }
            path.append(ch)
        }
        return path
    }

    /// The restoration id a path starts with (undoing `restorationPath`'s escapes).
    static func restorationID(inPath path: String) -> String {
        var rid = "", escaped = false
        for ch in path {
            if escaped { rid.append(ch); escaped = false }
            else if ch == "\\" { escaped = true }
            else if ch == "#" { break }
            else { rid.append(ch) }
        }
        return rid
    }

    /// R11.1, R13.8: what preservation saves: the selected leaf by restoration path (else the
    /// deepest tab of the selected path that has one), and the stacks of every tab of the tree
    /// that has a restoration id.
    public func preserve() -> RestorationArchive {
        var archive = RestorationArchive()
        let all = treeTabs
        let paths = Self.restorationPaths(of: all)
        if arranged {
            for id in selectedPath.reversed() {
                if let i = all.firstIndex(where: { $0.id == id }), let p = paths[i] { archive.selected = p; break }
            }
        } else if let i = selectedIndex {
            archive.selected = paths[i]
        }
        for (t, path) in zip(all, paths) { if let path { archive.stacks[path] = t.stack } }
        return archive
    }

    /// R11.1, R13.8: selects the saved tab by restoration id, wherever it is in the tree (the
    /// exact path first when ids repeat), never a hidden one; tabs without one return to their
    /// defaults.
    mutating func restore(_ archive: RestorationArchive, _ out: inout Outcome) {
        // A format 1 or 2 journal's restore record replays with the paths tabd made then (see
        // `RestorationArchive.legacyPaths`), so that it restores what it restored then: root
        // tabs only, as then.
        let addresses = archive.legacyPaths ? tabs.indices.map { [$0] } : treeAddresses
        let all = addresses.map { self[at: $0] }
        let legacyPaths = all.map(Self.legacyPath)
        let paths = archive.legacyPaths ? legacyPaths : Self.restorationPaths(of: all)
        for k in all.indices {
            // Archives made before issue 17 named a stack "<restoration id>#<tab id>": read as
            // a last resort — unless that is another tab's path now.
            let path = paths[k]
            var legacy = archive.legacyPaths ? nil : legacyPaths[k]
            if let l = legacy, paths.contains(l) { legacy = nil }
            let stack = path.flatMap { archive.stacks[$0] } ?? legacy.flatMap { archive.stacks[$0] } ?? []
            let restored = all[k].navigation ? stack : []
            if all[k].stack != restored {
                modify(at: addresses[k]) { $0.stack = restored }
                out.notify(.navigationChanged(tab: all[k].id, stack: restored))
            }
        }
        var target: Int?
        if let path = archive.selected {
            target = paths.firstIndex { $0 == path }
            if target == nil, !archive.legacyPaths { target = legacyPaths.firstIndex { $0 == path } }
            if target == nil {
                let rid = Controller.restorationID(inPath: path)
                target = all.firstIndex { $0.restorationID == rid }
            }
        }
        if target == nil, !tabs.isEmpty { target = 0 }
        guard let target else { return }
        if arranged {
            // R13: never onto a hidden tab (R13.3), and down to the group's leaf (R13.2).
            guard let node = layout.node(all[target].id) else { return }
            return moveSelection(to: visibleLanding(node), cause: .restore, &out)
        }
        let next = Selection.tab(tabs[addresses[target][0]].id)
        guard next != selection else { return }
        let previous = selection
        appear(next, disappearing: previous, &out)
        selection = next
        out.notify(.selectionChanged(tab: next.wireValue, index: selectedIndex,
                                                   previous: previous.wireValue, cause: .restore))
    }
}
