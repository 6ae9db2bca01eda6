private import CYAJL

/// The versions of the package and of the libyajl it runs on, for `yajl --version` and bug
/// reports.
public enum SwiftYAJLVersion {
    /// This package's version.
    public static let package = "0.9.0"

    /// The version of the libyajl loaded at run time (`yajl_version()`), as `2.1.0`.
    public static var yajl: String {
        let number = Int(yajl_version())
        return "\(number / 10000).\(number / 100 % 100).\(number % 100)"
    }
}
