// Draws a ControllerView as text: the content area and the bar as a device would show them
// (bar at the bottom on phone and pad, at the top on tv), then the More list, the tabs with
// their stacks, orientation and customizing. With colour, ANSI SGR: reverse video for the
// highlighted item, dim for ids shown in place of a missing title, a red badge. Without
// colour, plain text: `>Name<` for the highlighted item, `(3)` for a badge, `[id]` for an
// id shown because the title is null.

import TabClient

struct Drawing {
    let colour: Bool

    /// One piece of styled text.
    struct Span {
        var text: String
        var sgr: [Int] = []
    }

    // SGR codes
    static let bold = 1, dim = 2, reverse = 7, red = 41, white = 97

    func render(_ spans: [Span], extra: [Int] = []) -> String {
        spans.map { span in
            let codes = extra + span.sgr
            guard colour, !codes.isEmpty, !span.text.isEmpty else { return span.text }
            return "\u{1B}[" + codes.map(String.init).joined(separator: ";") + "m" + span.text + "\u{1B}[0m"
        }.joined()
    }

    /// A text from tabd, safe to print (no control characters: a title must not be able to
    /// move the cursor or recolour the terminal) and at most `limit` columns wide.
    static func clean(_ s: String, limit: Int = 24) -> String {
        let safe = String(s.map { ch -> Character in
            let v = ch.unicodeScalars.first!.value
            return v < 0x20 || (v >= 0x7F && v < 0xA0) ? "?" : ch
        })
        guard width(safe) > limit else { return safe }
        var out = ""
        var w = 0
        for ch in safe {
            w += columns(ch)
            if w > limit - 1 { break }
            out.append(ch)
        }
        return out + "…"
    }

    /// Terminal columns of a character: 2 for East Asian wide ones and most emoji, else 1.
    static func columns(_ ch: Character) -> Int {
        let v = ch.unicodeScalars.first!.value
        switch v {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }

    static func width(_ s: String) -> Int { s.reduce(0) { $0 + columns($1) } }
    static func width(_ spans: [Span]) -> Int { spans.reduce(0) { $0 + width($1.text) } }

    // MARK: names

    /// A tab's name as the bar shows it: its item's title, else its id marked as such.
    func itemName(_ tab: TabView) -> [Span] {
        if let t = tab.itemTitle { return [Span(text: Self.clean(t))] }
        return untitled(tab.id)
    }

    /// A tab's name in lists: its title, else its id marked as such.
    func tabName(_ tab: TabView) -> [Span] {
        if let t = tab.title { return [Span(text: Self.clean(t))] }
        return untitled(tab.id)
    }

    func untitled(_ id: String) -> [Span] {
        let id = Self.clean(id)
        return colour ? [Span(text: id, sgr: [Self.dim])] : [Span(text: "[" + id + "]")]
    }

    func badge(_ value: String?) -> [Span] {
        guard let value else { return [] }
        let v = Self.clean(value, limit: 8)
        return colour ? [Span(text: " "), Span(text: " " + v + " ", sgr: [Self.red, Self.white])] : [Span(text: " (" + v + ")")]
    }

    /// The label of a bar item: a tab (name and badge) or More. R14: the search tab starts
    /// with a magnifier, a disabled tab is dim (`~name~` without colour).
    func label(_ item: String, in c: ControllerView) -> [Span] {
        if item == "more" { return [Span(text: "More")] }
        guard let tab = c.anyTab(item) else { return untitled(item) }
        return decorated(tab, itemName(tab)) + badge(tab.badge)
    }

    /// R14: a name with the search tab's magnifier and a disabled tab's mark.
    func decorated(_ tab: TabView, _ name: [Span]) -> [Span] {
        var spans = name
        if tab.isSearch { spans.insert(Span(text: "⌕ "), at: 0) }
        guard !tab.enabled else { return spans }
        return colour ? spans.map { Span(text: $0.text, sgr: $0.sgr + [Self.dim]) } : [Span(text: "~")] + spans + [Span(text: "~")]
    }

    // MARK: the drawing

    func draw(_ c: ControllerView) -> String {
        var lines: [String] = []
        var header = [Span(text: Self.clean(c.name, limit: 64), sgr: [Self.bold]),
                      Span(text: " — \(c.idiom), max_visible \(c.maxVisible)")]
        if let tp = c.tapPops { header.append(Span(text: ", tap_pops \(tp)")) }
        if let size = c.sizeClass { header.append(Span(text: ", \(size)")) }  // R14.4
        header.append(Span(text: ", seq \(c.seq)"))
        lines.append(render(header))
        lines.append("")
        lines += device(c)
        lines.append("")
        lines += moreList(c)
        lines += sidebar(c)
        lines += tabTable(c)
        lines.append("")
        lines += footer(c)
        if !colour { lines.append("key: >Name< highlighted item, (3) badge, [id] tab without a title") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The content area and the bar, in one box.
    func device(_ c: ControllerView) -> [String] {
        let labels = c.bar.visible.map { label($0, in: c) }
        // Equal cells, as a tab bar divides its width; the whole at least 44 columns.
        var cell = (labels.map(Self.width).max() ?? 0) + 2
        let n = max(labels.count, 1)
        while n * (cell + 1) + 1 < 44 { cell += 1 }
        let inner = n * (cell + 1) - 1

        func centred(_ spans: [Span], highlighted: Bool) -> String {
            let w = Self.width(spans)
            let left = (cell - w) / 2, right = cell - w - left
            if colour {
                let pad = { (k: Int) in Span(text: String(repeating: " ", count: k)) }
                return render([pad(left)] + spans + [pad(right)], extra: highlighted ? [Self.reverse] : [])
            }
            if highlighted {
                return String(repeating: " ", count: max(left - 1, 0)) + ">" + render(spans) + "<"
                    + String(repeating: " ", count: max(right - 1, 0))
            }
            return String(repeating: " ", count: left) + render(spans) + String(repeating: " ", count: right)
        }

        let cells: String
        if labels.isEmpty {
            let empty = [Span(text: "no items", sgr: [Self.dim])]
            let w = Self.width(empty)
            cells = "│ " + render(empty) + String(repeating: " ", count: inner - w - 1) + "│"
        } else {
            cells = "│" + zip(c.bar.visible, labels).map { centred($1, highlighted: $0 == c.bar.selected) }
                .joined(separator: "│") + "│"
        }
        let rule = { (l: String, mid: String, r: String) in
            l + Array(repeating: String(repeating: "─", count: labels.isEmpty ? inner : cell), count: n).joined(separator: mid) + r
        }
        let content = contentLines(c).map { spans -> String in
            let w = Self.width(spans)
            let fitted = w <= inner - 2 ? spans : [Span(text: Self.clean(spans.map(\.text).joined(), limit: inner - 2))]
            return "│ " + render(fitted) + String(repeating: " ", count: max(inner - 2 - Self.width(fitted), 0)) + " │"
        }
        let plainEdge = String(repeating: "─", count: inner)
        if c.bar.hidden {
            // R14.3: no bar on screen; what it holds is still listed.
            let holds = c.bar.visible.map { render(label($0, in: c)) }.joined(separator: ", ")
            return ["┌" + plainEdge + "┐"] + content + ["└" + plainEdge + "┘",
                    "  bar hidden (\(c.idiom)); it holds: \(holds.isEmpty ? "nothing" : holds)"]
        }
        let compact = c.sizeClass == "compact" && c.idiom == "pad" ? ", compact" : ""
        if c.bar.position == "top" {
            return [rule("┌", "┬", "┐"), cells, rule("├", "┴", "┤")] + content + ["└" + plainEdge + "┘",
                    "  bar at the top (\(c.idiom)\(compact))"]
        }
        return ["┌" + plainEdge + "┐"] + content + [rule("├", "┬", "┤"), cells, rule("└", "┴", "┘"),
                "  bar at the bottom (\(c.idiom)\(compact))"]
    }

    /// What the content area shows: the selected tab's top screen and where it is.
    func contentLines(_ c: ControllerView) -> [[Span]] {
        guard let sel = c.selected else {
            return [[Span(text: "nothing selected", sgr: [Self.dim])], []]
        }
        if sel == "more" {
            return [[Span(text: "More", sgr: [Self.bold])], [Span(text: "the More list (\(c.bar.more.count) tabs)")]]
        }
        guard var tab = c.tab(sel) else { return [[Span(text: "selected: " + Self.clean(sel))], []] }
        var path: [Span] = []
        if c.bar.more.contains(sel) { path.append(Span(text: "More › ")) }
        // R13: the groups down to the leaf, whose content shows.
        for id in c.selectedPath.dropFirst() {
            guard let leaf = c.anyTab(id) else { break }
            path += tabName(tab) + [Span(text: " › ")]
            tab = leaf
        }
        path += tabName(tab).map { Span(text: $0.text, sgr: $0.sgr + [Self.bold]) }
        if tab.navigation {
            for s in tab.stack { path.append(Span(text: " › ")); path += screenName(s) }
        }
        var place = "tab \(Self.clean(tab.id))"
        if let i = c.selectedIndex { place += ", index \(i)" }
        if c.bar.more.contains(sel) { place += ", under More" }
        else if c.bar.unreachable.contains(sel) { place += ", not on the bar" }
        place += tab.contentLoaded ? "" : ", content not loaded"
        return [path, [Span(text: place, sgr: [Self.dim])]]
    }

    func screenName(_ s: ScreenView) -> [Span] {
        if let t = s.title { return [Span(text: Self.clean(t))] }
        return untitled(s.id)
    }

    func moreList(_ c: ControllerView) -> [String] {
        if c.bar.visible.contains("more") {
            var lines = [render([Span(text: "More list", sgr: [Self.bold])])
                         + (c.selected == "more" ? " (shown: More is selected)" : "") + ":"]
            for id in c.bar.more {
                lines.append(listEntry(id, c, selected: id == c.selected))
            }
            return lines + [""]
        }
        if !c.bar.unreachable.isEmpty {
            var lines = [render([Span(text: "Not on the bar", sgr: [Self.bold])]) + " (no room on a \(c.idiom) bar; select only):"]
            for id in c.bar.unreachable { lines.append(listEntry(id, c, selected: id == c.selected)) }
            return lines + [""]
        }
        return []
    }

    func listEntry(_ id: String, _ c: ControllerView, selected: Bool) -> String {
        let name = c.tab(id).map { itemName($0) + badge($0.badge) } ?? untitled(id)
        if colour {
            return "  " + (selected ? render(name, extra: [Self.reverse]) + " ◀ selected" : render(name))
        }
        return selected ? "  >" + render(name) + "<  (selected)" : "   " + render(name)
    }

    /// R13.6: the sidebar's tree where one exists, the selected path marked.
    func sidebar(_ c: ControllerView) -> [String] {
        guard c.sidebarAvailable else { return [] }
        let path = Set(c.selectedPath)
        var lines = [render([Span(text: "Sidebar", sgr: [Self.bold])]) + " (\(c.sidebarWanted ? "shown" : "hidden"), mode \(c.mode ?? "automatic")\(c.editing ? ", editing" : "")):"]
        // R13.12: a collapsed group's children are not shown (▸ collapsed, ▾ expanded).
        var collapsedBelow: Int?
        for (depth, t) in c.sidebarRows {
            if let d = collapsedBelow { if depth > d { continue } else { collapsedBelow = nil } }
            if t.children != nil, !t.expanded { collapsedBelow = depth }
            let indent = String(repeating: "  ", count: depth)
            let fold = t.children == nil ? [] : [Span(text: t.expanded ? "▾ " : "▸ ")]
            let name = fold + decorated(t, itemName(t)) + badge(t.badge)
            let on = path.contains(t.id)
            if colour { lines.append("  " + indent + (on ? render(name, extra: [Self.reverse]) : render(name))) }
            else { lines.append((on ? "  " + indent + ">" + render(name) + "<" : "   " + indent + render(name))) }
        }
        return lines + [""]
    }

    /// The rows of the tab table: every tab of the tree, children (in display order) under
    /// their group, with their depth and their index among the roots.
    func treeRows(_ c: ControllerView) -> [(index: Int?, depth: Int, tab: TabView)] {
        var rows: [(Int?, Int, TabView)] = []
        func visit(_ t: TabView, _ index: Int?, _ depth: Int) {
            rows.append((index, depth, t))
            for id in t.displayOrder { if let k = t.children?.first(where: { $0.id == id }) { visit(k, nil, depth + 1) } }
        }
        for (i, t) in c.tabs.enumerated() { visit(t, i, 0) }
        return rows
    }

    func tabTable(_ c: ControllerView) -> [String] {
        if c.tabs.isEmpty { return [render([Span(text: "Tabs", sgr: [Self.bold])]) + ": none"] }
        let modern = c.usesModernModel
        let path = Set(c.selectedPath)
        var rows: [[[Span]]] = [[[Span(text: "#")], [Span(text: "id")], [Span(text: "title")], [Span(text: "badge")],
                                 [Span(text: "content")], [Span(text: "stack")]]]
        if modern { rows[0].append([Span(text: "placement")]) }
        for (i, depth, t) in treeRows(c) {
            let stack: [Span]
            if t.navigation {
                stack = [Span(text: "root")] + t.stack.flatMap { [Span(text: " › ")] + screenName($0) }
            } else {
                stack = [Span(text: "-")]
            }
            let title = t.title.map { [Span(text: Self.clean($0))] } ?? [Span(text: "null", sgr: [Self.dim])]
            // R13: children indented under their group, `*` on the selected path.
            let mark = modern ? (path.contains(t.id) ? "*" : " ") : ""
            var row = [[Span(text: (i.map(String.init) ?? "") + mark)],
                       [Span(text: String(repeating: "  ", count: depth) + (depth > 0 ? "└ " : "") + Self.clean(t.id))], title,
                       [Span(text: t.badge.map { Self.clean($0, limit: 8) } ?? "-")],
                       [Span(text: t.contentLoaded ? "loaded" : "not loaded")], stack]
            if modern {
                var notes = t.placement ?? (depth == 0 ? "automatic" : "-")
                if t.hidden { notes += ", hidden" }
                if !t.enabled { notes += ", disabled" }  // R14.2
                if t.isSearch { notes += ", search" }  // R14.1
                if t.children != nil, !t.expanded { notes += ", collapsed" }  // R13.12
                row.append([Span(text: notes)])
            }
            rows.append(row)
        }
        var widths = [Int](repeating: 0, count: rows[0].count)
        for r in rows { for (k, col) in r.enumerated() { widths[k] = max(widths[k], Self.width(col)) } }
        var lines = [render([Span(text: "Tabs", sgr: [Self.bold])]) + " (\(c.tabs.count)):"]
        if modern { lines[0] += " * on the selected path, children under their group" }
        for (n, r) in rows.enumerated() {
            var line = "  "
            for (k, col) in r.enumerated() {
                let spans = n == 0 ? col.map { Span(text: $0.text, sgr: [Self.dim]) } : col
                line += render(spans)
                if k < r.count - 1 { line += String(repeating: " ", count: widths[k] - Self.width(col) + 2) }
            }
            lines.append(line)
        }
        return lines
    }

    func footer(_ c: ControllerView) -> [String] {
        let asRead = c.readAt >= c.seq ? "" : " (as state said at seq \(c.readAt))"
        var lines = ["orientation: \(c.orientation); supported: \(c.supported.joined(separator: ", ")); preferred: \(c.preferred ?? "none")\(asRead)"]
        if let custom = c.customizable, !custom.isEmpty {
            lines.append("customizable: " + custom.map { Self.clean($0) }.joined(separator: ", "))
        } else {
            lines.append("customizable: none")
        }
        // R14.
        if c.tabs.contains(where: \.isSearch) { lines.append("search: \(c.searchActive == true ? "active" : "not active")") }
        if c.editing { lines.append("editing: yes (edit.begin)") }
        if c.customizing {
            var s = "customizing: yes"
            if let order = c.customizingOrder {
                s += ", order: " + order.map { Self.clean($0) }.joined(separator: ", ")
                if c.orderReadAt < c.seq { s += " (as at seq \(c.orderReadAt); moves are announced when the session ends)" }
            }
            lines.append(s)
        } else {
            lines.append("customizing: no")
        }
        return lines
    }
}
