// How deep a configuration's YAML nests, found before Yams builds its tree: Yams' parser
// recurses once per level, so ~2,400 levels of `{` (2.4 KB) overflowed the stack of a fuzzed
// loader, and a config file of a few hundred KB would crash tabd at start or reload (found by
// fuzz/config). libyaml's event parser keeps its own stacks, so it is walked here, event by
// event, counting collections opened and closed.

import CYaml
import TabCore

enum YAMLDepth {
    /// The deepest nesting a configuration may have (ServerConfig.Limits.yamlDepth).
    static let maxDepth = ServerConfig.Limits.yamlDepth

    /// Where the text first nests deeper than `maxDepth` (1-based line and column, as libyaml
    /// counts them), or nil: not that deep, or not YAML at all (Yams then says why).
    static func tooDeep(_ text: String) -> (line: Int, column: Int)? {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { return nil }
        defer { yaml_parser_delete(&parser) }
        var copy = text
        return copy.withUTF8 { bytes -> (line: Int, column: Int)? in
            yaml_parser_set_input_string(&parser, bytes.baseAddress, bytes.count)
            yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
            var depth = 0
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else { return nil }
                defer { yaml_event_delete(&event) }
                switch event.type {
                case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                    depth += 1
                    if depth > maxDepth { return (Int(event.start_mark.line) + 1, Int(event.start_mark.column) + 1) }
                case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                    depth -= 1
                case YAML_STREAM_END_EVENT, YAML_NO_EVENT:
                    return nil
                default:
                    break
                }
            }
        }
    }
}
