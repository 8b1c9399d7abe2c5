// Loading plugins: the C example built out of tree, and every refusal the host makes
// before (and right after) dlopen — each one explained, none taking the process down.

import Foundation
import TabCore
import CTabPolicy
import TabPlugins
import Testing

/// All plugin tests run one after another: a plugin file, once dlopened, is shared by
/// every host in the process.
@Suite(.serialized) struct PluginTests {}

extension PluginTests {
    @Suite struct Loading {
        /// The C example builds with nothing but `cc -shared -fPIC` and the header, loads,
        /// and reports its name, version, hooks and ABI.
        @Test func helloBuiltOutOfTreeLoads() throws {
            let dir = try temporaryDirectory()
            try run(["cc", "-shared", "-fPIC", "-I", includeDirectory, packageRoot + "/Plugins/examples/hello.c", "-o", dir + "/hello.so"])
            let (host, log) = makeHost([dir])
            try host.load([PluginSpec(path: "hello.so", configJSON: #"{"prefix":"secret"}"#)])
            let status = try #require(host.status("hello"))
            #expect(status.loaded)
            #expect(status.error == nil)
            #expect(status.version == "1.0.0")
            #expect(status.abi == headerABI)
            #expect(status.path == dir + "/hello.so")
            #expect(status.hooks == ["init", "fini", "should_select", "did_select", "will_begin_customizing", "did_end_customizing", "call", "selection_changed", "timer", "controller_created", "controller_deleted", "may_open_drawer", "top_column_for_collapsing", "notify"])
            #expect(log.contains("hello ready: tabs starting with 'secret' are locked"))
            #expect(log.contains("plugin loaded"))
        }

        /// A required plugin that is missing makes load throw, naming it; the others still load.
        @Test func requiredPluginMissingThrows() throws {
            let dir = try temporaryDirectory()
            try compilePlugin(gatePlugin(name: "yes", result: "TABD_ALLOW"), named: "yes.so", in: dir)
            let (host, log) = makeHost([dir])
            #expect(throws: PluginError.self) {
                try host.load([PluginSpec(path: "yes.so"), PluginSpec(path: "absent.so", required: true)])
            }
            #expect(host.status("yes")?.loaded == true)
            let absent = try #require(host.status("absent.so"))
            #expect(!absent.loaded)
            #expect(absent.required)
            #expect(absent.error?.contains("no file named 'absent.so' in the plugin directories") == true)
            #expect(log.contains("plugin refused: no file named 'absent.so'"))
        }

        /// A refused plugin that is not required is listed with its reason; load does not throw.
        @Test func optionalRefusalDoesNotThrow() throws {
            let dir = try temporaryDirectory()
            let (host, _) = makeHost([dir])
            try host.load([PluginSpec(path: "absent.so")])
            #expect(host.status("absent.so")?.loaded == false)
            #expect(host.status("absent.so")?.error != nil)
        }

        /// A plugin named by a path outside every plugin directory is refused.
        @Test func fileOutsidePluginDirectoriesIsRefused() throws {
            let allowed = try temporaryDirectory(), elsewhere = try temporaryDirectory()
            let path = try compilePlugin(gatePlugin(name: "outside", result: "TABD_ALLOW"), named: "outside.so", in: elsewhere)
            let (host, log) = makeHost([allowed])
            #expect(throws: PluginError.self) { try host.load([PluginSpec(path: path, required: true)]) }
            #expect(host.status("outside.so")?.error?.contains("is not inside a plugin directory") == true)
            #expect(log.contains("is not inside a plugin directory"))
        }

        /// A symlink in a plugin directory that leads outside is refused too.
        @Test func symlinkLeadingOutsideIsRefused() throws {
            let allowed = try temporaryDirectory(), elsewhere = try temporaryDirectory()
            let path = try compilePlugin(gatePlugin(name: "outside", result: "TABD_ALLOW"), named: "outside.so", in: elsewhere)
            try FileManager.default.createSymbolicLink(atPath: allowed + "/link.so", withDestinationPath: path)
            let (host, _) = makeHost([allowed])
            try host.load([PluginSpec(path: "link.so")])
            #expect(host.status("link.so")?.error?.contains("outside the plugin directories") == true)
        }

        /// A group-writable plugin file is refused, with the fix in the message.
        @Test func groupWritableFileIsRefused() throws {
            let dir = try temporaryDirectory()
            let path = try compilePlugin(gatePlugin(name: "loose", result: "TABD_ALLOW"), named: "loose.so", in: dir)
            #expect(chmod(path, 0o775) == 0)
            let (host, log) = makeHost([dir])
            try host.load([PluginSpec(path: "loose.so")])
            let error = try #require(host.status("loose.so")?.error)
            #expect(error.contains("group- or world-writable (mode 775)"))
            #expect(error.contains("chmod go-w"))
            #expect(log.contains("group- or world-writable"))
        }

        /// A world-writable plugin file is refused.
        @Test func worldWritableFileIsRefused() throws {
            let dir = try temporaryDirectory()
            let path = try compilePlugin(gatePlugin(name: "loose", result: "TABD_ALLOW"), named: "loose.so", in: dir)
            #expect(chmod(path, 0o757) == 0)
            let (host, _) = makeHost([dir])
            try host.load([PluginSpec(path: "loose.so")])
            #expect(host.status("loose.so")?.error?.contains("group- or world-writable") == true)
        }

        /// A plugin file owned by someone other than root or tabd's user is refused.
        @Test func fileOwnedByAnotherUserIsRefused() throws {
            let dir = try temporaryDirectory()
            let path = try compilePlugin(gatePlugin(name: "theirs", result: "TABD_ALLOW"), named: "theirs.so", in: dir)
            let (host, _) = makeHost([dir])
            if geteuid() == 0 {
                #expect(chown(path, 65534, 65534) == 0)
                try host.load([PluginSpec(path: "theirs.so")])
                #expect(host.status("theirs.so")?.error?.contains("is owned by uid 65534; plugins must be owned by root or by tabd's user") == true)
            } else {
                // Not root: the file is ours and therefore trusted; a root-owned file is too.
                try host.load([PluginSpec(path: "theirs.so")])
                #expect(host.status("theirs")?.loaded == true)
            }
        }

        /// A file that is not a shared object fails dlopen, and the dlopen error is shown.
        @Test func dlopenFailureIsReported() throws {
            let dir = try temporaryDirectory()
            try "not an ELF file".write(toFile: dir + "/garbage.so", atomically: true, encoding: .utf8)
            let (host, _) = makeHost([dir])
            try host.load([PluginSpec(path: "garbage.so")])
            let error = try #require(host.status("garbage.so")?.error)
            #expect(error.hasPrefix("dlopen failed:"))
            #expect(error.contains("garbage.so"))
        }

        /// A shared object without tabd_policy_entry is refused, saying how to export it.
        @Test func missingEntrySymbolIsRefused() throws {
            let dir = try temporaryDirectory()
            try compilePlugin("int not_a_plugin(void) { return 1; }\n", named: "nosym.so", in: dir)
            let (host, _) = makeHost([dir])
            #expect(throws: PluginError.self) { try host.load([PluginSpec(path: "nosym.so", required: true)]) }
            #expect(host.status("nosym.so")?.error?.contains("does not export tabd_policy_entry") == true)
        }

        /// A plugin built before ABI 1.2 (a descriptor ending at `call`) loads, and tabd
        /// reads nothing past its struct_size: what follows it in memory is never a hook.
        @Test func aDescriptorOfAnOlderMinorLoadsWithoutLaterHooks() throws {
            let dir = try temporaryDirectory()
            // The descriptor is followed by a non-NULL pointer where will_stop would be.
            let source = """
                #include <tabd/policy.h>
                static void garbage(void) {}
                static const struct { tabd_policy_descriptor d; } both = {
                    { .abi_major = 1, .abi_minor = 1, .struct_size = TABD_POLICY_DESCRIPTOR_SIZE_1_0,
                      .name = "old", .version = "1.1", .description = "built against 1.1",
                      .will_stop = (void (*)(void *, const tabd_controller *))garbage } };
                TABD_POLICY_EXPORT const tabd_policy_descriptor *tabd_policy_entry(void) { return &both.d; }
                """
            try compilePlugin(source, named: "old.so", in: dir)
            let (host, _) = makeHost([dir])
            try host.load([PluginSpec(path: "old.so")])
            let status = try #require(host.status("old"))
            #expect(status.loaded)
            #expect(status.abi == "1.1")
            #expect(!status.hooks.contains("will_stop"), "\(status.hooks)")
        }

        /// A plugin built for another ABI major is refused, naming both versions.
        @Test func abiMajorMismatchIsRefused() throws {
            let dir = try temporaryDirectory()
            try compilePlugin(cPlugin(name: "future", abiMajor: "2"), named: "future.so", in: dir)
            let (host, _) = makeHost([dir])
            try host.load([PluginSpec(path: "future.so")])
            let error = try #require(host.status("future.so")?.error)
            #expect(error.contains("built for plugin ABI 2.\(TABD_POLICY_ABI_MINOR) but this tabd speaks ABI \(headerABI)"))
        }

        /// A newer minor of the same major loads (minors only append).
        @Test func newerMinorLoads() throws {
            let dir = try temporaryDirectory()
            let source = cPlugin(name: "newer").replacingOccurrences(of: ".abi_minor = TABD_POLICY_ABI_MINOR", with: ".abi_minor = 99")
            try compilePlugin(source, named: "newer.so", in: dir)
            let (host, _) = makeHost([dir])
            try host.load([PluginSpec(path: "newer.so")])
            #expect(host.status("newer")?.loaded == true)
            #expect(host.status("newer")?.abi == "1.99")
        }

        /// A descriptor smaller than the 1.0 one is refused.
        @Test func shortDescriptorIsRefused() throws {
            let dir = try temporaryDirectory()
            try compilePlugin(cPlugin(name: "short", structSize: "offsetof(tabd_policy_descriptor, call)"), named: "short.so", in: dir)
            let (host, _) = makeHost([dir])
            try host.load([PluginSpec(path: "short.so")])
            let error = try #require(host.status("short.so")?.error)
            #expect(error.contains("its descriptor is 112 bytes but an ABI 1.0 descriptor has at least 120"))
        }

        /// An init that fails refuses the plugin with the plugin's own message; required → throws.
        @Test func failingInitIsRefusedWithItsMessage() throws {
            let dir = try temporaryDirectory()
            try compilePlugin(cPlugin(name: "moody", hooks: """
                static tabd_result moody_init(const tabd_host *h, const char *config, void **state, tabd_reply *reply) {
                    (void)h; (void)config; (void)state;
                    reply->message = "the moon is not full";
                    return TABD_ERROR;
                }
                """, fields: ".init = moody_init,"), named: "moody.so", in: dir)
            let (host, log) = makeHost([dir])
            do {
                try host.load([PluginSpec(path: "moody.so", required: true)])
                Issue.record("load should have thrown")
            } catch let error as PluginError {
                #expect(error.plugin == "moody")
                #expect(error.message == "init failed: the moon is not full")
            }
            #expect(host.status("moody")?.loaded == false)
            #expect(host.status("moody")?.error == "init failed: the moon is not full")
            #expect(log.contains("plugin refused: init failed: the moon is not full"))
        }

        /// Settings that are not a JSON object refuse the plugin before init.
        @Test func settingsMustBeAnObject() throws {
            let dir = try temporaryDirectory()
            try compilePlugin(gatePlugin(name: "yes", result: "TABD_ALLOW"), named: "yes.so", in: dir)
            let (host, _) = makeHost([dir])
            try host.load([PluginSpec(path: "yes.so", configJSON: "[1,2]")])
            #expect(host.status("yes")?.error == "its settings are not a JSON object")
        }

        /// Two plugins with the same name: the second is refused; `name` tells them apart.
        @Test func duplicateNamesAreRefused() throws {
            let dir = try temporaryDirectory()
            try compilePlugin(gatePlugin(name: "twin", result: "TABD_ALLOW"), named: "a.so", in: dir)
            try compilePlugin(gatePlugin(name: "twin", result: "TABD_ALLOW"), named: "b.so", in: dir)
            let (host, _) = makeHost([dir])
            try host.load([PluginSpec(path: "a.so"), PluginSpec(path: "b.so")])
            #expect(host.plugins.map(\.loaded) == [true, false])
            #expect(host.plugins[1].error?.contains("already named 'twin'") == true)

            let (renamed, _) = makeHost([dir])
            try renamed.load([PluginSpec(path: "a.so"), PluginSpec(name: "twin-b", path: "b.so")])
            #expect(renamed.plugins.map(\.name) == ["twin", "twin-b"])
            #expect(renamed.plugins.allSatisfy { $0.loaded })
        }

        /// With no plugin directory configured nothing loads, and the message says where to configure one.
        @Test func noDirectoryMeansNoPlugins() throws {
            let (host, _) = makeHost([])
            try host.load([PluginSpec(path: "hello.so")])
            #expect(host.status("hello.so")?.error?.contains("no plugin directory is configured") == true)
        }
    }
}
