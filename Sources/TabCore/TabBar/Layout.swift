// R10: layout — where the bar is and the frames of the bar and the content (R10.1, with
// R13.11's bar at the top of a regular-width pad and R14.3's hidden bar).

extension Controller {
    /// Where the bar is (R10.1, R13.11): at the top on tv and on a regular-width pad.
    public var barAtTop: Bool { idiom == .tv || (idiom == .pad && sizeClass == .regular) }

    // MARK: R10 — layout

    /// The bar's height in points for this idiom.
    public var barHeight: Double {
        switch idiom {
        case .phone: return 49
        case .pad: return 50
        case .tv: return 68
        }
    }

    /// R10.1: bar and content frames for a screen. Content never underlaps the bar; a tab
    /// with full-screen layout underlaps the status bar (phone/pad only).
    public func layout(width: Double, height: Double, statusBar: Double? = nil) -> (bar: Frame, content: Frame) {
        let status = idiom == .tv ? 0 : (statusBar ?? 20)
        let bar = barHidden ? 0 : min(barHeight, height)  // R14.3: no bar inset while hidden
        if idiom == .pad, sizeClass == .regular {
            // R13.11: a regular-width pad's bar is at the top, under the status bar; content
            // starts below it (a full-screen tab still never underlaps the bar), or under the
            // status bar while the bar is hidden.
            var fullScreen = false
            if case .tab(let id) = selection, let t = tab(id) { fullScreen = t.fullScreenLayout }
            let top = min(status, height - bar)
            let contentTop = bar > 0 ? top + bar : (fullScreen ? 0 : top)
            return (Frame(x: 0, y: top, width: width, height: bar),
                    Frame(x: 0, y: contentTop, width: width, height: max(0, height - contentTop)))
        }
        if idiom == .tv {
            return (Frame(x: 0, y: 0, width: width, height: bar),
                    Frame(x: 0, y: bar, width: width, height: max(0, height - bar)))
        }
        var fullScreen = false
        if case .tab(let id) = selection, let t = tab(id) { fullScreen = t.fullScreenLayout }
        let top = fullScreen ? 0 : min(status, height - bar)
        return (Frame(x: 0, y: height - bar, width: width, height: bar),
                Frame(x: 0, y: top, width: width, height: max(0, height - bar - top)))
    }
}
