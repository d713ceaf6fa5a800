import Foundation
import VaultAPI
import VaultCore
import VaultModel
import VaultRules

// Assessment documents: decode, validate, publish and verify. Garbage gets a typed refusal; a document that
// validates can be served, and the served form decodes, validates and verifies on the client (content and question
// hashes) exactly as the vault checks a download.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    guard let document = try? JSONDecoder().decode(Assessment.self, from: data) else { return 0 }
    do {
        try AssessmentValidator.validate(document)
    } catch {
        return 0
    }
    guard let served = try? AssessmentPublisher.serve(document, version: 1) else {
        require(false, "a valid document could not be served")
        return 0
    }
    guard let downloaded = try? JSONDecoder().decode(Assessment.self, from: served.bytes) else {
        require(false, "the served bytes do not decode")
        return 0
    }
    require((try? AssessmentValidator.validate(downloaded, requireAnswerKeyAbsent: true)) != nil, "the served form does not validate")
    require((try? ServedDocument.verify(downloaded)) != nil, "the served form fails its own hashes")
    require(downloaded.contentHash == served.contentHash, "content hash changed between serve and download")
    return 0
}
