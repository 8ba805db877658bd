import Foundation
import Mustache

/// The templates and stylesheet of `Web/`, read once when the server starts.
///
/// Looked for, in order: `$KILN_WEB`; `share/kiln/Web` beside the binary's directory (an installed
/// Kiln: `/usr/local/bin/kiln` reads `/usr/local/share/kiln/Web`); `Web/` in the directory the
/// binary was built in (a checkout running `make run`).
public struct WebAssets: Sendable {
    public let directory: String
    let library: MustacheLibrary
    let stylesheet: String

    static let templates = ["header", "footer", "index", "bigscreen", "bot", "integration"]

    public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        var candidates: [String] = []
        if let configured = environment["KILN_WEB"] { candidates.append(configured) }
        let binary = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath().deletingLastPathComponent()
        candidates.append(binary.deletingLastPathComponent().appendingPathComponent("share/kiln/Web").path)
        // Sources/KilnWeb/Pages/WebAssets.swift → the package's Web/.
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(source.deletingLastPathComponent().appendingPathComponent("Web").path)
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/index.mustache") }
    }

    public init(directory: String) throws(WebAssetsError) {
        self.directory = directory
        var library = MustacheLibrary()
        for name in Self.templates {
            let path = "\(directory)/\(name).mustache"
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw .missing(path) }
            do {
                try library.register(text, named: name)
            } catch {
                throw .invalid(path, "\(error)")
            }
        }
        self.library = library
        guard let css = try? String(contentsOfFile: directory + "/style.css", encoding: .utf8) else { throw .missing(directory + "/style.css") }
        stylesheet = css
    }

    /// Locates and reads the assets.
    public static func load(environment: [String: String] = ProcessInfo.processInfo.environment) throws(WebAssetsError) -> WebAssets {
        guard let directory = locate(environment: environment) else { throw .notFound }
        return try WebAssets(directory: directory)
    }

    func render(_ page: Any, _ template: String) -> String {
        library.render(page, withTemplate: template) ?? ""
    }
}

public enum WebAssetsError: Error, Sendable, CustomStringConvertible {
    case notFound
    case missing(String)
    case invalid(String, String)

    public var description: String {
        switch self {
        case .notFound:
            "cannot find Kiln's web templates: set KILN_WEB to the Web directory, or install it as share/kiln/Web beside the binary's bin/"
        case .missing(let path): "cannot read the web template \(path): reinstall the Web directory"
        case .invalid(let path, let reason): "the web template \(path) is not valid mustache: \(reason)"
        }
    }
}
