import Foundation
import KilnCore
import Mustache

/// The page templates and stylesheet of `Web/` (see `WebDirectory`), read once when the server starts.
public struct WebAssets: Sendable {
    public let directory: String
    let library: MustacheLibrary
    let stylesheet: String

    static let templates = ["header", "footer", "chart", "index", "bigscreen", "bot", "integration", "test", "login"]

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
        guard let directory = WebDirectory.locate(environment: environment) else { throw .notFound }
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
            WebDirectory.notFoundHint
        case .missing(let path): "cannot read the web template \(path): reinstall the Web directory"
        case .invalid(let path, let reason): "the web template \(path) is not valid mustache: \(reason)"
        }
    }
}
