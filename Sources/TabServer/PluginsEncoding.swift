import TabJSON
import TabPlugins
import TabProtocol

/// Writes the plugin host's records into a reply. Each record already knows
/// its compact JSON text; this splices it in without re-parsing.
enum PluginsEncoding {
    static func status(_ p: PluginStatus, _ w: inout JSONWriter) { w.raw(Array(p.json.utf8)) }
    static func decision(_ d: DecisionRecord, _ w: inout JSONWriter) { w.raw(Array(d.json.utf8)) }
    static func stats(_ s: PluginStats, _ w: inout JSONWriter) { w.raw(Array(s.json.utf8)) }
}
