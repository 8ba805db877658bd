import Foundation

/// Writes whole lines straight to the terminal or pipe, unbuffered, so progress from a
/// long-running command reaches systemd's journal or a test as it happens.
enum Console {
    static func out(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func error(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
