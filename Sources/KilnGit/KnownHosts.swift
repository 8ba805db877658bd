import Foundation
import Synchronization

/// The ssh host keys Kiln has seen, in `<data>/mirrors/known_hosts`: trusted on first use, and a
/// host whose key later changes is refused (as OpenSSH's `StrictHostKeyChecking accept-new`).
///
/// Lines are `host[:port] SHA256:<base64 of the key's SHA-256>`. To trust a new key after a
/// server's key really changed, delete the host's line.
struct KnownHosts: Sendable {
    let path: String

    /// Serialises reading and appending the file across libgit2's threads.
    private static let lock = Mutex(())

    enum Verdict: Equatable {
        case known, added, changed(expected: String)
    }

    func check(host: String, fingerprint: String) -> Verdict {
        Self.lock.withLock { _ in
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n") {
                let fields = line.split(separator: " ", maxSplits: 1)
                guard fields.count == 2, fields[0] == host else { continue }
                return fields[1] == fingerprint ? .known : .changed(expected: String(fields[1]))
            }
            try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let updated = text + "\(host) \(fingerprint)\n"
            try? updated.write(toFile: path, atomically: true, encoding: .utf8)
            return .added
        }
    }
}
