// outside SOCKET CONTROLLER: keeps a mirror of one controller with TabClient's Mirror and
// prints a JSON line per sync ({"sync":"initial"|"resync","instance_changed","nothing_missed",
// "seq"}) and per change ({"seq","selected"}), until it is killed.

import Foundation
import TabClient  // and nothing else of tabd's: TabClient re-exports TabJSON's values

let arguments = CommandLine.arguments
let mirror = Mirror(path: arguments[1], controllers: [arguments[2]], reconnect: .init(giveUpAfter: .seconds(60)))

func say(_ members: [(String, JSONValue)]) {
    FileHandle.standardOutput.write(Data((JSONValue.object(JSONObject(members)).jsonString + "\n").utf8))
}

func picture(_ v: ControllerView) -> [(String, JSONValue)] {
    [("seq", .int(Int64(v.seq))), ("selected", v.selected.map(JSONValue.string) ?? .null)]
}

for try await update in mirror.updates() {
    switch update {
    case .synced(let sync):
        var line: [(String, JSONValue)] = [("sync", .string(sync.initial ? "initial" : "resync"))]
        if !sync.initial {
            line += [("instance_changed", .bool(sync.instanceChanged)), ("nothing_missed", .bool(sync.nothingMissed))]
        }
        say(line + (sync.controllers[arguments[2]].map(picture) ?? []))
    case .changed(let v, _), .resynced(let v, _):
        say(picture(v))
    case .compositeChanged, .compositeResynced, .deleted, .disconnected:
        break
    }
}
