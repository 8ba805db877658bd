import Subprocess

/// The Swift toolchain integrations build with.
public enum Toolchain {
    /// The first line of `swift --version`, such as `Swift version 6.3.1 (swift-6.3.1-RELEASE)`;
    /// nil when no `swift` is on the PATH.
    public static func version() async -> String? {
        do {
            let result = try await Subprocess.run(
                .name("swift"), arguments: ["--version"], output: .string(limit: 64 * 1024), error: .discarded)
            guard result.terminationStatus.isSuccess else { return nil }
            let text = result.standardOutput
            return text.split(separator: "\n").first { $0.contains("Swift version") }.map(String.init)
        } catch {
            return nil
        }
    }
}
