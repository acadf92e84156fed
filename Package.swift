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
    .library(name: "StreamFoundation", targets: ["StreamFoundation"]),
    .library(name: "StreamTesting", targets: ["StreamTesting"]),
    // Other libraries' APIs, each in a module of its own named after it, built on the Combine
    // modules above (which declare only Combine's names).
    .library(name: "StreamCombineExt", targets: ["StreamCombineExt"]),
    .library(name: "StreamCombineSchedulers", targets: ["StreamCombineSchedulers"]),
    .library(name: "StreamConbini", targets: ["StreamConbini"]),
    .library(name: "StreamConcurrency", targets: ["StreamConcurrency"]),
    .library(name: "StreamObservation", targets: ["StreamObservation"]),
    .library(name: "StreamPropagate", targets: ["StreamPropagate"]),
    .library(name: "StreamShuttle", targets: ["StreamShuttle"]),
    .library(name: "StreamSnail", targets: ["StreamSnail"]),
    .library(name: "StreamSwiftySignals", targets: ["StreamSwiftySignals"]),
  ],
  targets: [
    // The futex calls and spin hint of StreamCore's lock on Linux (header-only C).
    .target(name: "StreamCoreShims"),
    .target(name: "StreamCore", dependencies: ["StreamCoreShims"], swiftSettings: strictSettings),
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
    // Foundation's Combine extensions: RunLoop and OperationQueue schedulers, Timer.publish and
    // URLSession.dataTaskPublisher. A module of its own because URLSession brings
    // FoundationNetworking (and with it libcurl) on Linux.
    .target(
      name: "StreamFoundation",
      dependencies: ["StreamCore", "SignalOperators"],
      swiftSettings: strictSettings
    ),
    .target(
      name: "StreamTesting",
      dependencies: ["StreamCore", "StreamFoundation", "StreamCombineSchedulers"],
      swiftSettings: strictSettings
    ),
    // The modules below hold other libraries' APIs under those libraries' own names; a Combine
    // port links none of them, so none of their names can clash with a library of its own.
    .target(
      name: "StreamCombineExt",
      dependencies: ["StreamCore", "SignalOperators"],
      swiftSettings: strictSettings
    ),
    .target(
      name: "StreamCombineSchedulers",
      dependencies: ["StreamCore", "StreamFoundation"],
      swiftSettings: strictSettings
    ),
    // StreamKit's own Swift-concurrency bridges beyond Combine's `values`: `AsyncSequence.publisher`,
    // buffering policies for `values`, a `Future` that runs an `async` closure.
    .target(
      name: "StreamConcurrency",
      dependencies: ["StreamCore", "SignalOperators", "FutureKit"],
      swiftSettings: strictSettings
    ),
    // StreamKit's own bridge to Swift's Observation: `@Observable` models as publishers.
    .target(
      name: "StreamObservation",
      dependencies: ["StreamCore", "SignalOperators"],
      swiftSettings: strictSettings
    ),
    .target(
      name: "StreamConbini",
      dependencies: ["StreamCore", "SignalOperators", "FutureKit"],
      swiftSettings: strictSettings
    ),
    .target(
      name: "StreamPropagate",
      dependencies: ["StreamCore", "FutureKit"],
      swiftSettings: strictSettings
    ),
    .target(
      name: "StreamShuttle",
      dependencies: ["StreamCore", "PropertyWrappers"],
      swiftSettings: strictSettings
    ),
    .target(
      name: "StreamSnail",
      dependencies: ["StreamCore", "SignalOperators", "PropertyWrappers", "StreamCombineExt"],
      swiftSettings: strictSettings
    ),
    .target(
      name: "StreamSwiftySignals",
      dependencies: [
        "StreamCore", "SignalOperators", "PropertyWrappers", "StreamCombineSchedulers",
        "StreamSnail",
      ],
      swiftSettings: strictSettings
    ),
    .executableTarget(
      name: "Examples",
      dependencies: [
        "FutureKit", "PropertyWrappers", "SignalOperators", "StreamConbini", "StreamConcurrency",
        "StreamCore", "StreamFoundation", "StreamObservation", "StreamPropagate", "StreamShuttle",
        "StreamSnail", "StreamSwiftySignals", "StreamTesting",
      ],
      swiftSettings: strictSettings
    ),
    // Writes the marble diagrams in Docs/ by running each operator through the marble kit;
    // CI runs it with `--check`.
    .executableTarget(
      name: "MarbleDiagrams",
      dependencies: [
        "SignalOperators", "StreamCombineExt", "StreamConbini", "StreamCore", "StreamPropagate",
        "StreamSnail", "StreamSwiftySignals", "StreamTesting",
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "StreamCoreTests",
      dependencies: ["StreamCombineSchedulers", "StreamCore"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "FutureKitTests",
      dependencies: [
        "FutureKit", "StreamCombineExt", "StreamConbini", "StreamConcurrency", "StreamCore",
        "StreamPropagate", "StreamSnail", "StreamSwiftySignals", "StreamTesting",
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "PropertyWrappersTests",
      dependencies: [
        "PropertyWrappers", "StreamCombineExt", "StreamCore", "StreamPropagate", "StreamShuttle",
        "StreamSnail", "StreamSwiftySignals", "StreamTesting",
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "SignalOperatorsTests",
      dependencies: [
        "SignalOperators", "StreamCombineExt", "StreamCombineSchedulers", "StreamConbini",
        "StreamConcurrency", "StreamCore", "StreamPropagate", "StreamSnail", "StreamSwiftySignals",
        "StreamTesting",
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "StreamFoundationTests",
      dependencies: [
        "SignalOperators", "StreamCombineSchedulers", "StreamConbini", "StreamCore",
        "StreamFoundation", "StreamSnail", "StreamSwiftySignals", "StreamTesting",
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "StreamObservationTests",
      dependencies: [
        "PropertyWrappers", "SignalOperators", "StreamConbini", "StreamCore", "StreamObservation",
        "StreamTesting",
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "StreamTestingTests",
      dependencies: ["SignalOperators", "StreamCombineSchedulers", "StreamCore", "StreamTesting"],
      swiftSettings: strictSettings
    ),
    // A client still in the Swift 5 language mode, using `values` from generic code: a compiler
    // crash or a source break for such clients fails the build.
    .testTarget(
      name: "Swift5ClientTests",
      dependencies: ["SignalOperators", "StreamCore"],
      swiftSettings: [.swiftLanguageMode(.v5)]
    ),
    // Code shaped like third-party Combine libraries written for the Swift 6 language mode
    // (non-final subscription classes with mutable state, cancellable structs holding plain
    // closures, a manual scheduler), with only the import changed: a change that makes such code
    // stop compiling fails the build.
    .testTarget(
      name: "CombineSourceCompatTests",
      dependencies: ["SignalOperators", "StreamCore"],
      swiftSettings: strictSettings
    ),
    // A library written as a third-party Combine library is (its own `Publishers.WithLatestFrom`,
    // `Materialize`, `Amb`, `Create`, `ReplaySubject`, `Signal`, `Promise`, `materialize()`,
    // `share(replay:)`, ...), with only the import changed, and a test target that imports it with
    // every Combine module: a Combine module that declares one of those names breaks the build.
    // Both are in the Swift 6 language mode with no other settings, as such a library would be.
    .target(
      name: "ThirdPartyCombineLibrary",
      dependencies: ["StreamCore", "SignalOperators"],
      path: "Tests/ThirdPartyCombineLibrary"
    ),
    .testTarget(
      name: "ThirdPartyCombineLibraryTests",
      dependencies: [
        "ThirdPartyCombineLibrary", "StreamCore", "SignalOperators", "FutureKit",
        "PropertyWrappers",
        "StreamFoundation",
      ]
    ),
    // Scheduler code written for Combine and combine-schedulers, in the Swift 6 language mode with
    // no other settings: a scheduler class with `var` state, `RunLoop.main` in generic code,
    // `AnySchedulerOf<RunLoop>`, `Publishers.Timer` on a run loop.
    .testTarget(
      name: "SchedulerSourceCompatTests",
      dependencies: [
        "StreamCore", "SignalOperators", "StreamFoundation", "StreamCombineSchedulers",
      ]
    ),
    // The Swift examples of the five seed libraries' READMEs, with only the import changed (see
    // each file's header): a call written for a seed compiles here, or the file says why not.
    .testTarget(
      name: "ShuttleExamplesTests",
      dependencies: ["PropertyWrappers", "StreamCore", "StreamShuttle"],
      path: "Tests/SeedExamples/ShuttleExamplesTests",
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "PropagateExamplesTests",
      dependencies: ["FutureKit", "StreamConbini", "StreamCore", "StreamPropagate"],
      path: "Tests/SeedExamples/PropagateExamplesTests",
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "ConbiniExamplesTests",
      dependencies: [
        "FutureKit", "SignalOperators", "StreamConbini", "StreamCore", "StreamTesting",
      ],
      path: "Tests/SeedExamples/ConbiniExamplesTests",
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "SnailExamplesTests",
      dependencies: ["PropertyWrappers", "SignalOperators", "StreamCore", "StreamSnail"],
      path: "Tests/SeedExamples/SnailExamplesTests",
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "SwiftySignalsExamplesTests",
      dependencies: ["PropertyWrappers", "SignalOperators", "StreamCore", "StreamSwiftySignals"],
      path: "Tests/SeedExamples/SwiftySignalsExamplesTests",
      swiftSettings: strictSettings
    ),
    // The samples of README.md and Docs/, generated by `.ci/samples.py`; a warning fails the build.
    .testTarget(
      name: "DocSamplesTests",
      dependencies: [
        "FutureKit", "PropertyWrappers", "SignalOperators", "StreamCombineExt",
        "StreamCombineSchedulers", "StreamConbini", "StreamConcurrency", "StreamCore",
        "StreamFoundation", "StreamObservation", "StreamPropagate", "StreamShuttle", "StreamSnail",
        "StreamSwiftySignals", "StreamTesting",
      ],
      swiftSettings: strictSettings + [.treatAllWarnings(as: .error)]
    ),
  ],
  swiftLanguageModes: [.v6]
)
