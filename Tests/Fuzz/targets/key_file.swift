import Foundation
@_spi(Testing) import VaultCore

// Key file decode and the bounds of an unlock. Two paths: the bytes as given (the checksum stops almost every
// mutant), and the same JSON with a recomputed checksum, so the structure and limit checks behind the checksum are
// reached too. Whatever decodes obeys every limit, re-encodes to itself, and never unlocks with a wrong password.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    check(data)
    if let parsed = try? JSONDecoder().decode(KeyFile.self, from: data), let resealed = try? parsed.encodedWithoutLimits() {
        check(resealed)
    }
    return 0
}

func check(_ data: Data) {
    let file: KeyFile
    do {
        file = try KeyFile.decode(data)
    } catch is KeyFileError {
        return
    } catch {
        require(false, "KeyFile.decode threw an untyped error: \(error)")
        return
    }
    require(!file.slots.isEmpty && file.slots.count <= KeyFile.Limits.maxSlots, "slot count \(file.slots.count) passed decode")
    let total = file.slots.reduce(0) { $0 + $1.kdf.iterations }
    require(total <= KeyFile.Limits.maxTotalIterations, "total iterations \(total) passed decode")
    require(file.slots.allSatisfy { (1...KeyFile.Limits.maxSlotID).contains($0.id) }, "a slot id out of range passed decode")
    require(Set(file.slots.map(\.id)).count == file.slots.count, "duplicate slot ids passed decode")
    guard let encoded = try? file.encoded() else {
        require(false, "a decoded key file cannot be written back")
        return
    }
    require((try? KeyFile.decode(encoded)) == file, "a decoded key file does not survive encode/decode")
    // Unlock only where it is cheap, so the fuzzer keeps its speed; the bound above covers the rest.
    if total <= 5_000 {
        let wrong = SecretBytes(Array("not-the-password".utf8))
        require((try? file.unlock(password: wrong)) == nil, "a mutated key file unlocked with a wrong password")
    }
}
