import Foundation
import Hummingbird

/// Why a request was not answered with what it asked for. Every handler throws these; this is the
/// one place they become status codes. API and webhook routes answer JSON `{"error": "…"}`; pages
/// answer a short plain-text explanation.
enum WebError: Error, HTTPResponseError {
    case notFound(String)
    case badRequest(String)
    case unauthorized(String)
    case tooLarge(limit: Int)

    var status: HTTPResponse.Status {
        switch self {
        case .notFound: .notFound
        case .badRequest: .badRequest
        case .unauthorized: .unauthorized
        case .tooLarge: .contentTooLarge
        }
    }

    var message: String {
        switch self {
        case .notFound(let what): "\(what) not found"
        case .badRequest(let why): why
        case .unauthorized(let why): why
        case .tooLarge(let limit): "the body is larger than \(limit / 1024) KiB"
        }
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let path = request.uri.path
        if path.hasPrefix("/api/") || path.hasPrefix("/hooks/") {
            let body = (try? API.encode(API.Failure(error: message))) ?? Data("{}".utf8)
            return Response(
                status: status, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        return Response(
            status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: message + "\n")))
    }
}
