import Foundation
import VaultAPI

// Server replies as the client parses them: batch results, receipts, catalogs, tokens, error envelopes, any JSON.
// Each either fails to decode or yields a value that re-encodes to JSON decoding to the same value, byte-stable.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    requireStableRoundTrip(ItemResult.self, data)
    requireStableRoundTrip(SubmissionReceipt.self, data)
    requireStableRoundTrip(CatalogEntry.self, data)
    requireStableRoundTrip(JSONValue.self, data)
    if let batch = try? JSONDecoder().decode(BatchResponse.self, from: data) {
        for result in batch.results { requireStableRoundTrip(ItemResult.self, (try? canonicalEncoder().encode(result)) ?? Data()) }
    }
    if let catalog = try? JSONDecoder().decode(CatalogResponse.self, from: data) {
        for entry in catalog.assessments { requireStableRoundTrip(CatalogEntry.self, (try? canonicalEncoder().encode(entry)) ?? Data()) }
    }
    _ = try? JSONDecoder().decode(ErrorEnvelope.self, from: data)
    _ = try? JSONDecoder().decode(TokenResponse.self, from: data)
    return 0
}
