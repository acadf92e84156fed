// swift-tools-version: 6.2
import PackageDescription

// The differential oracle (issue 15): runs the same scripted scenario against StreamKit and against
// OpenCombine and compares everything observable.
//
// This is a separate package so the main package does not depend on OpenCombine.
// Build and run from this directory: `swift run Differential` (see README.md).
let package = Package(
  name: "StreamKitDifferential",
  // Same floor as the main package (`Synchronization` needs these Apple releases).
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  dependencies: [
    // `name:` makes the package referable as "StreamKit" whatever the checkout's directory is called.
    .package(name: "StreamKit", path: ".."),
    .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
  ],
  targets: [
    // Library-neutral model: scripts, traces, comparison, shrinking, the known and intended lists.
    .target(name: "DiffModel"),
    // One scenario source for both implementations: Sources/OpenCombineScenarios/Scenarios.swift
    // is a relative symlink to Sources/StreamKitScenarios/Scenarios.swift.
    .target(
      name: "StreamKitScenarios",
      dependencies: [
        "DiffModel",
        .product(name: "StreamCore", package: "StreamKit"),
        .product(name: "SignalOperators", package: "StreamKit"),
        .product(name: "FutureKit", package: "StreamKit"),
        .product(name: "PropertyWrappers", package: "StreamKit"),
      ]
    ),
    .target(
      name: "OpenCombineScenarios",
      dependencies: [
        "DiffModel",
        .product(name: "OpenCombine", package: "OpenCombine"),
        .product(name: "OpenCombineFoundation", package: "OpenCombine"),
        .product(name: "OpenCombineDispatch", package: "OpenCombine"),
      ],
      swiftSettings: [.define("OPENCOMBINE")]
    ),
    .executableTarget(
      name: "Differential",
      dependencies: ["DiffModel", "StreamKitScenarios", "OpenCombineScenarios"]
    ),
  ],
  swiftLanguageModes: [.v6]
)
