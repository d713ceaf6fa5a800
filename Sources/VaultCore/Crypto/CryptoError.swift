/// A failure inside the OpenSSL primitives. Carries the operation's name, never key material.
public struct CryptoError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable { case randomFailed, kdfFailed, cipherFailed, authenticationFailed }
    public let kind: Kind
    public let operation: String

    public init(_ kind: Kind, operation: String) {
        self.kind = kind
        self.operation = operation
    }

    public var description: String { "\(operation) failed (\(kind))" }
}
