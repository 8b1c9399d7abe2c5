// R8: badges — `badge` sets one tab's badge, at any depth of the tree.

extension Controller {
    /// R8: a badge changes nothing but the badge.
    mutating func setBadge(_ id: String, _ value: String?, _ out: inout Outcome) throws(TabError) {
        guard let index = self.index(of: id) else {
            guard let at = locate(id) else { throw .noTab(id) }
            guard self[at: at].badge != value else { return }
            modify(at: at) { t in if t.item == nil { t.item = TabItem(badge: value) } else { t.item!.badge = value } }
            return out.notify(.badgeChanged(tab: id, value: value))
        }
        guard tabs[index].badge != value else { return }
        if tabs[index].item == nil {
            tabs[index].item = TabItem(badge: value)
        } else {
            tabs[index].item!.badge = value
        }
        out.notify(.badgeChanged(tab: id, value: value))
    }
}
