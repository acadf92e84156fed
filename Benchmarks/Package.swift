// swift-tools-version: 6.2
import PackageDescription

// Benchmarks for StreamKit's `StreamCore` against OpenCombine.
//
// This is a separate package so the main package does not depend on OpenCombine.
// Build and run from this directory: `swift run -c release Bench`, or `python3 run.py`.
let package = Package(
  name: "StreamKitBenchmarks",
  // Same floor as the main package (`Synchronization` needs these Apple releases).
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  dependencies: [
    // `name:` makes the package referable as "StreamKit" whatever the checkout's directory is called
    // (a path dependency's identity is otherwise its directory name).
    .package(name: "StreamKit", path: ".."),
    .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
  ],
  targets: [
    // Counts heap allocations by interposing malloc and friends (glibc only; a no-op elsewhere).
    .target(name: "MallocCounter"),
    // One workload source for both implementations: Sources/OpenCombineWorkloads/Workloads.swift
    // is a relative symlink to Sources/StreamKitWorkloads/Workloads.swift.
    .target(
      name: "StreamKitWorkloads",
      dependencies: [
        .product(name: "StreamCore", package: "StreamKit"),
        .product(name: "FutureKit", package: "StreamKit"),
        .product(name: "PropertyWrappers", package: "StreamKit"),
        .product(name: "SignalOperators", package: "StreamKit"),
        // CombineExt's operators (withLatestFrom, share(replay:)) that some workloads measure.
        .product(name: "StreamCombineExt", package: "StreamKit"),
      ]
    ),
    .target(
      name: "OpenCombineWorkloads",
      dependencies: [
        .product(name: "OpenCombine", package: "OpenCombine"),
        .product(name: "OpenCombineDispatch", package: "OpenCombine"),
      ],
      swiftSettings: [.define("OPENCOMBINE")]
    ),
    .executableTarget(
      name: "Bench",
      dependencies: ["StreamKitWorkloads", "OpenCombineWorkloads", "MallocCounter"]
    ),
  ],
  swiftLanguageModes: [.v6]
)
