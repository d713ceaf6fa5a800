/// The version of `vault` and `vault-server`, in one place: both commands' `--version` and the Debian packages
/// (`scripts/package` reads it from here when no `--version` is given).
public enum ProductVersion {
    public static let current = "0.1.0"
}
