import Foundation
import Hummingbird
import NIOFoundationEssentialsCompat
import VaultAPI
import VaultCore

/// Reading JSON request bodies (gzip allowed, size-capped) and writing JSON responses (gzip when accepted).
enum JSONBody {
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, limit: Int) async throws -> T {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: limit)
        } catch {
            throw APIError.tooLarge
        }
        var data = Data(buffer: buffer)
        if let encoding = request.headers[.contentEncoding]?.lowercased(), encoding != "identity" {
            guard encoding == "gzip" else {
                throw APIError(.unsupportedMediaType, code: .unsupportedEncoding, message: "Only gzip request bodies are accepted.")
            }
            do {
                data = try Gzip.decompress(data, limits: .init(maxOutputBytes: limit, maxRatio: 1_000))
            } catch Gzip.Failure.tooLarge, Gzip.Failure.ratioExceeded {
                throw APIError.tooLarge
            } catch {
                throw APIError.badRequest("The request body is not valid gzip.")
            }
        }
        if let fast = T.self as? any FastJSONDecodable.Type, let value = fast.fastDecode(data) as? T { return value }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let error as DecodingError {
            throw APIError.badRequest("The request body is not what this endpoint expects: \(describe(error)).")
        } catch let error as QuestionShapeError {
            throw APIError.badRequest("The request body is not what this endpoint expects: \(error).")
        } catch {
            throw APIError.badRequest("The request body is not valid JSON.")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, _): "missing field \(key.stringValue)"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            "wrong type at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        case .dataCorrupted: "malformed JSON"
        @unknown default: "malformed JSON"
        }
    }

    static func response<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok, request: Request, headers: HTTPFields = [:]) throws -> Response
    {
        try response(bytes: CanonicalJSON.encode(value), status: status, request: request, headers: headers)
    }

    static func response(bytes: Data, status: HTTPResponse.Status = .ok, request: Request, headers: HTTPFields = [:]) throws -> Response {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        var body = bytes
        if bytes.count > 1024, acceptsGzip(request) {
            body = try Gzip.compress(bytes)
            headers[.contentEncoding] = "gzip"
        }
        headers[.vary] = "Accept-Encoding"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    static func acceptsGzip(_ request: Request) -> Bool {
        guard let accepted = request.headers[.acceptEncoding]?.lowercased() else { return false }
        return accepted.split(separator: ",").contains { part in
            let fields = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            return fields.first == "gzip" && !fields.dropFirst().contains("q=0")
        }
    }
}
