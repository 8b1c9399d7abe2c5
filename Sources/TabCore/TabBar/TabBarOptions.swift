// The tab kind's configuration (R3.1, R4.3, R13.6, R14.4, R14.7): what `controller.create`,
// a configuration's `controllers` and the journal's create record give a new tab bar
// controller. One value, checked in one place, written by one function, so that the layers
// between the wire and the registry pass a kind's configuration without knowing its members.

import TabJSON

public struct TabBarOptions: Equatable, Sendable {
    public var idiom: Idiom
    /// The most items the bar shows (R3.1); nil: the idiom's default.
    public var maxVisible: Int?
    /// Which taps pop a tab's stack to its root (R4.3).
    public var tapPops: TapPops
    /// Bar or sidebar (R13.6).
    public var mode: Mode
    /// A pad's width class (R14.4); nil: the idiom's.
    public var sizeClass: SizeClass?
    /// The root tabs a compact width shows (R14.7); nil: the tabs' own.
    public var compactTabs: [String]?
    /// A window's root from its creation (R15.4: true, as every tab controller was); false
    /// for one to be attached to another container.
    public var window = true

    public init(idiom: Idiom = .phone, maxVisible: Int? = nil, tapPops: TapPops = .always, mode: Mode = .automatic,
                sizeClass: SizeClass? = nil, compactTabs: [String]? = nil) {
        self.idiom = idiom
        self.maxVisible = maxVisible
        self.tapPops = tapPops
        self.mode = mode
        self.sizeClass = sizeClass
        self.compactTabs = compactTabs
    }

    /// The bounds of `max_visible` for an idiom (R3.1): a tv bar may show one item.
    public static func maxVisibleRange(_ idiom: Idiom) -> ClosedRange<Int> { (idiom == .tv ? 1 : 2)...1000 }

    /// Refuses options no tab bar controller can have (nothing is created).
    public func validate() throws(TabError) {
        if let sizeClass, sizeClass != idiom.defaultSizeClass, idiom != .pad {
            // R14.4: phone is always compact, tv always regular.
            throw TabError(.notAvailable, "the \(idiom.rawValue) idiom is always \(idiom.defaultSizeClass.rawValue); only a pad has size_class \(sizeClass.rawValue)")
        }
        if let maxVisible {
            let range = Self.maxVisibleRange(idiom)
            guard range.contains(maxVisible) else {
                throw TabError(.outOfRange, "max_visible must be between \(range.lowerBound) and \(range.upperBound) for the \(idiom.rawValue) idiom")
            }
        }
    }

    /// The forms the options are written in.
    public enum Form: Sendable {
        /// The journal's create record: what was asked (`max_visible` null for the default).
        case journal
        /// `controller.create`'s reply: what the controller has (`Controller.options`).
        case reply
    }

    /// Writes the options as members of the object `w` is in (snake_case, the wire's names).
    public func writeMembers(to w: inout JSONWriter, _ form: Form) {
        w.key(literal: "idiom"); w.string(idiom.rawValue)
        w.key(literal: "max_visible")
        if let maxVisible { w.int(maxVisible) } else { w.null() }
        w.key(literal: "tap_pops"); w.string(tapPops.rawValue)
        if mode != .automatic { w.key(literal: "mode"); w.string(mode.rawValue) }  // R13.6
        if let sizeClass, form == .journal || sizeClass != idiom.defaultSizeClass {  // R14.4
            w.key(literal: "size_class"); w.string(sizeClass.rawValue)
        }
        if let compactTabs {  // R14.7
            w.key(literal: "compact_tabs"); w.beginArray()
            for id in compactTabs { w.string(id) }
            w.endArray()
        }
        if !window { w.key(literal: "window"); w.bool(false) }  // R15.4: written when not the default
    }
}

/// What a new container is: its kind, with the kind's configuration.
public enum ContainerSpec: Equatable, Sendable {
    case tab(TabBarOptions)
    /// A navigation, drawer or custom controller (R15).
    indirect case composite(CompositeSpec)

    public var kind: ContainerKind {
        switch self {
        case .tab: return .tab
        case .composite(let spec): return spec.kind
        }
    }
}

extension Controller {
    /// The options this controller has now (the idiom's defaults filled in): what
    /// `controller.create` replies.
    public var options: TabBarOptions {
        TabBarOptions(idiom: idiom, maxVisible: maxVisible, tapPops: tapPops, mode: mode, sizeClass: sizeClass, compactTabs: compactTabs)
    }

    /// A new controller as `options` say (already validated).
    init(name: String, _ options: TabBarOptions) {
        self.init(name: name, idiom: options.idiom, maxVisible: options.maxVisible, tapPops: options.tapPops,
                  mode: options.mode, sizeClass: options.sizeClass, compactTabs: options.compactTabs)
    }
}
