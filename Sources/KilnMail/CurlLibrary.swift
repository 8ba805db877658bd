internal import CCurl

/// The process's libcurl: initialised once, before the first use.
public enum CurlLibrary {
    private static let initialized: Bool = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        return true
    }()

    /// Why libcurl cannot be opened (with the package to install), or nil when it can. libcurl is
    /// opened on first use, not when Kiln starts.
    public static var loadError: String? {
        kiln_curl_error().map { "cannot open libcurl (\(String(cString: $0))): install it with `apt-get install libcurl4`" }
    }

    public static func initialize() {
        _ = initialized
    }

    /// `duration` in whole milliseconds, as libcurl's `…_MS` options take it.
    public static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }

    /// The linked libcurl's version, such as `7.88.1`.
    public static var version: String {
        initialize()
        guard let info = kiln_curl_version_info(), let version = info.pointee.version else { return "unknown" }
        return String(cString: version)
    }

    /// The protocols this libcurl speaks; Kiln needs `smtp` and `smtps`.
    public static var protocols: Set<String> {
        initialize()
        guard let info = kiln_curl_version_info(), var cursor = info.pointee.protocols else { return [] }
        var names: Set<String> = []
        while let name = cursor.pointee {
            names.insert(String(cString: name))
            cursor += 1
        }
        return names
    }
}
