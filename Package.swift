// swift-tools-version: 6.2
import PackageDescription

let strictSettings: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("InternalImportsByDefault"),
  .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
  name: "StreamKit",
  // `Synchronization.Mutex` and `Atomic` need these Apple releases; Linux and Windows have them.
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "StreamCore", targets: ["StreamCore"]),
    .library(name: "FutureKit", targets: ["FutureKit"]),
    .library(name: "PropertyWrappers", targets: ["PropertyWrappers"]),
    .library(name: "SignalOperators", targets: ["SignalOperators"]),
    .library(name: "StreamTesting", targets: ["StreamTesting"]),
  ],
  targets: [
    .target(name: "StreamCore", swiftSettings: strictSettings),
    .target(
      name: "FutureKit",
      dependencies: ["StreamCore"],
      swiftSettings: strictSettings
    ),
    .target(
      name: "PropertyWrappers",
      dependencies: ["StreamCore"],
      swiftSettings: strictSettings
    ),
    .target(
      name: "SignalOperators",
      dependencies: ["StreamCore"],
      swiftSettings: strictSettings
    ),
    .target(
      name: "StreamTesting",
      dependencies: ["StreamCore"],
      swiftSettings: strictSettings
    ),
    .executableTarget(
      name: "Examples",
      dependencies: [
        "StreamCore", "FutureKit", "PropertyWrappers", "SignalOperators", "StreamTesting",
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "StreamCoreTests",
      dependencies: ["StreamCore"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "FutureKitTests",
      dependencies: ["FutureKit", "StreamTesting", "StreamCore"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "PropertyWrappersTests",
      dependencies: ["PropertyWrappers", "StreamTesting", "StreamCore"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "SignalOperatorsTests",
      dependencies: ["SignalOperators", "StreamTesting", "StreamCore"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "StreamTestingTests",
      dependencies: ["StreamTesting", "StreamCore"],
      swiftSettings: strictSettings
    ),
  ],
  swiftLanguageModes: [.v6]
)
