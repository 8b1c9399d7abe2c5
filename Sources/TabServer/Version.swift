// tabd's version is TabProtocol's TabdVersion.string; this is what --version adds to it.
import TabProtocol
import TabPlugins

/// What `tabd --version` prints: the version on its first line (what scripts read), then
/// what a plugin must be built for — the plugin ABI and, for a Swift plugin, the Swift
/// compiler (a Swift plugin shares tabd's Swift runtime) — from the same values as
/// `tabd_build_info` (ServiceStats.buildInfo).
public enum BuildDescription {
    public static var versionText: String {
        "\(TabdVersion.string)\nplugin ABI \(PluginHost.abiVersion) (tabd/policy.h); Swift \(ServiceStats.swiftVersion) (build Swift plugins with it)"
    }
}
