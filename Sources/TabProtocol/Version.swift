// tabd's version: the one place it is written. tabd --version, tabctl --version, the log's
// `tabd ready … version=`, `hello`'s reply, the man pages and the Makefile's VERSION read it.

public enum TabdVersion {
    public static let string = "0.1.0"
}
