import Foundation

/// Names the process that runs an integration, so that a later process can tell whether it is gone.
///
/// `host pid start-time`: the start time (from /proc) tells a live process apart from a new one
/// that reused the pid after a reboot or a crash.
public enum ProcessOwner {
    /// This process's owner name.
    public static var current: String {
        let pid = getpid()
        return "\(hostName) \(pid) \(startTime(of: pid) ?? "0")"
    }

    /// Whether the process named by `owner` still runs. An owner on another host is assumed alive
    /// (this host cannot know); an empty or malformed one is not.
    public static func isAlive(_ owner: String) -> Bool {
        let parts = owner.split(separator: " ")
        guard parts.count == 3, let pid = Int32(parts[1]) else { return false }
        guard parts[0] == hostName else { return true }
        return startTime(of: pid) == String(parts[2])
    }

    static var hostName: String { ProcessInfo.processInfo.hostName.replacingOccurrences(of: " ", with: "_") }

    /// Field 22 of /proc/PID/stat: the process's start time in clock ticks since boot.
    static func startTime(of pid: Int32) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after the command name (which may hold spaces) start at field 3.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 19 ? String(fields[19]) : nil
    }
}
