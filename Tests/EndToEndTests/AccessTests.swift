// Peer credentials and admin-only commands, with a real client of another uid (setpriv).

import Foundation
import Glibc
import TabJSON
import TabProtocol
import Testing

@Suite struct AccessTests {
    /// `nobody` on Debian.
    static let otherUID: uid_t = 65534

    /// Sends `lines` as uid 65534 (setpriv drops root for socat) and returns the replies.
    static func asOtherUser(_ socket: String, _ lines: [String], groups: [UInt32] = []) throws -> [JSONObject] {
        let groupsOption = groups.isEmpty ? "--clear-groups" : "--groups=" + groups.map(String.init).joined(separator: ",")
        let (status, output) = try shell(
            "setpriv --reuid=\(otherUID) --regid=\(otherUID) \(groupsOption) socat -t 5 - UNIX-CONNECT:\(socket)",
            input: lines.map { $0 + "\n" }.joined())
        guard status == 0 else { throw TestFailure("socat as uid \(otherUID) failed (\(status)): \(output)") }
        return try output.split(separator: "\n").map { try object(String($0)) }
    }

    /// A tabd whose socket another user may reach (directory 0755, socket 0666).
    static func openTabd(_ extraConfig: String = "") throws -> TabdProcess {
        let dir = temporaryDirectory("acc")
        chmod(dir, 0o755)
        return try TabdProcess(config: "socket_mode: \"0666\"\n" + extraConfig, dir: dir)
    }

    @Test func adminCommandsAreForbiddenToOtherUsers() throws {
        let tabd = try Self.openTabd()
        let replies = try Self.asOtherUser(tabd.socket, [
            #"{"cmd":"reload","id":1}"#,
            #"{"cmd":"controller.create","controller":"kiosk","id":2}"#,
            #"{"cmd":"controller.delete","controller":"kiosk","id":3}"#,
            #"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}],"id":4}"#,
            #"{"cmd":"select","tab":"b","id":5}"#,
        ])
        #expect(replies.count == 5)
        guard replies.count == 5 else { return }
        for i in [0, 2] {
            #expect(replies[i].bool("ok") == false)
            let error = replies[i].object("error")
            #expect(error?.string("code") == "forbidden")
            #expect(error?.string("message")?.contains("uid \(Self.otherUID)") == true, "\(error.map { JSONValue.object($0).jsonString } ?? "")")
        }
        // Everything else is for everyone, creating a controller included.
        for i in [1, 3, 4] { #expect(replies[i].bool("ok") == true, "\(JSONValue.object(replies[i]).jsonString)") }
        // The refused delete changed nothing: the controller is still there (asked as root).
        let root = try tabd.client()
        let names = try root.request(#"{"cmd":"controllers"}"#).object("result")?["controllers"]
        #expect(names?.jsonString.contains("\"kiosk\"") == true)
        // And root may delete it.
        #expect(try root.request(#"{"cmd":"controller.delete","controller":"kiosk"}"#).bool("ok") == true)
    }

    @Test func configuredAdminUIDMayReload() throws {
        let tabd = try Self.openTabd("access:\n  admin_uids: [\(Self.otherUID)]\n")
        let replies = try Self.asOtherUser(tabd.socket, [#"{"cmd":"reload","id":"r"}"#])
        #expect(replies.first?.bool("ok") == true, "\(replies.map { JSONValue.object($0).jsonString })")
        #expect(replies.first?.string("id") == "r")
    }

    @Test func configuredAdminGIDMayDelete() throws {
        let tabd = try Self.openTabd("access:\n  admin_gids: [\(Self.otherUID)]\n")
        let replies = try Self.asOtherUser(tabd.socket, [
            #"{"cmd":"controller.create","controller":"x"}"#,
            #"{"cmd":"controller.delete","controller":"x"}"#,
        ])
        #expect(replies.map { $0.bool("ok") } == [true, true], "\(replies.map { JSONValue.object($0).jsonString })")
    }
}
