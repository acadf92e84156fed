// swift-tools-version: 6.2
import PackageDescription

// Combine's own behaviour, as OpenCombine's test suite records it (issue 39): OpenCombine 0.14.0's
// `Tests/OpenCombineTests`, which OpenCombine runs against Apple's Combine every week, compiled
// in its compatibility mode (`OPENCOMBINE_COMPATIBILITY_TEST`, which imports `Combine`) against
// a module named `Combine` that re-exports StreamKit's Combine modules.
//
// The test sources are not committed: `prepare.sh` fetches them from OpenCombine's repository
// at the tag. A separate package, so the main package keeps no dependencies. See README.md.
let package = Package(
  name: "StreamKitConformance",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  dependencies: [
    .package(name: "StreamKit", path: "..")
  ],
  targets: [
    // What `import Combine` means for the suite: StreamKit's Combine modules, nothing else.
    .target(
      name: "Combine",
      dependencies: [
        .product(name: "StreamCore", package: "StreamKit"),
        .product(name: "SignalOperators", package: "StreamKit"),
        .product(name: "FutureKit", package: "StreamKit"),
        .product(name: "PropertyWrappers", package: "StreamKit"),
        .product(name: "StreamFoundation", package: "StreamKit"),
      ]
    ),
    .testTarget(
      name: "OpenCombineTests",
      dependencies: ["Combine"],
      swiftSettings: [.define("OPENCOMBINE_COMPATIBILITY_TEST")]
    ),
  ],
  // OpenCombine's tests are Swift 5 code.
  swiftLanguageModes: [.v5]
)
