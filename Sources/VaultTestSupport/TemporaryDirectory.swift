public enum VaultTestSupport {}
